/**
 * The first step every operation that decides takes: every item's decision and input read, and
 * checked against the decision's declared fields before anything is sent (an item that fails
 * spends no quota). Decide, Evaluate and the tool run on it.
 */
import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type NodeApiError,
} from 'n8n-workflow';
import type { DecisionClient, RecentDecision } from '../../../src/client';
import type { ContextField, Decision } from '../../../src/contract';
import { validateDecideInput } from '../../../src/contract/validation';
import { toNodeError } from '../errors';
import { inputFor, slugOf, type DecideInput } from './input';
import { runsAsTool } from './tool';

export type Prepared = { slug: string; input: DecideInput } | { error: Error };

/** A declared field's type in a user's words, with an example value of it. */
const TYPE_WORDS: Record<ContextField['type'], string> = {
	string: 'text',
	number: 'number',
	boolean: 'true or false',
	array: 'list',
	object: 'object',
};

/**
 * What to do about the first problem, in the words of the input mode the user chose: where to map
 * the field, with an expression to start from. The field names are the decision's (untrusted), read
 * as text only.
 */
function howToFix(
	n8n: IExecuteFunctions,
	itemIndex: number,
	field: ContextField | undefined,
	name: string,
): string {
	const type = field ? TYPE_WORDS[field.type] : 'value';
	const article = /^[aeiou]/.test(type) ? 'an' : 'a';
	const example = `{{ $json.${/^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`} }}`;
	const mode = n8n.getNodeParameter('inputMode', itemIndex, 'mapFields') as string;
	if (mode === 'json') {
		return `Give the JSON input "${name}" with ${article} ${type} value, e.g. { "${name}": ${example} }.`;
	}
	const mapping = n8n.getNodeParameter('inputFields.mappingMode', itemIndex, 'defineBelow');
	if (mapping === 'autoMapInputData') {
		return `Map Automatically reads the item's own "${name}": give the item one (an Edit Fields node before this one), or choose Map Each Column Manually and map ${article} ${type} value to "${name}", e.g. ${example}.`;
	}
	return `Under Context Fields, map ${article} ${type} value to "${name}", e.g. ${example}.`;
}

/** The problems of an input against its decision's declared fields, as one error naming the item. */
function validationError(
	n8n: IExecuteFunctions,
	decision: Decision,
	input: DecideInput,
	itemIndex: number,
): NodeOperationError | undefined {
	const problems = validateDecideInput(decision.context.fields, input);
	if (!problems.length) return undefined;
	const names = problems.map((problem) => problem.field.replace(/^input\./, ''));
	const listed = problems
		.map((problem, at) => `field "${names[at]}" ${problem.message}`)
		.join('; ');
	const first = decision.context.fields.find((field) => field.name === names[0]);
	const others = problems.length > 1 ? ' Likewise for the other fields named above.' : '';
	return new NodeOperationError(n8n.getNode(), listed.charAt(0).toUpperCase() + listed.slice(1), {
		itemIndex,
		description: `${howToFix(n8n, itemIndex, first, names[0])}${others} No request was sent for this item, so no quota was spent.`,
	});
}

/**
 * An item that fails here under n8n's default On Error (Stop Workflow) fails the whole node before
 * anything is sent: its description says so, and how to let the other items go on. Not in a tool
 * call (an agent has no Settings) nor for a lone item (there are no others).
 */
function stoppedTheNode(
	n8n: IExecuteFunctions,
	error: NodeApiError | NodeOperationError,
	count: number,
): NodeApiError | NodeOperationError {
	if (count < 2 || runsAsTool(n8n)) return error;
	error.description = `${error.description ?? ''} ${stoppedText(count)}`.trim();
	return error;
}

/** The sentence stoppedTheNode adds. */
export function stoppedText(count: number): string {
	return `With On Error at n8n's default (Stop Workflow), this one item stopped the node: none of the ${count} items went on, and none was sent, so nothing was charged. To let the others go on without it, open this node's Settings, set On Error to "Continue (using error output)" and wire the error output.`;
}

/**
 * Every item's slug and input, checked against its decision unless the user turned that off.
 * `skip` (Evaluate): items that need no decide get that error entry instead, and are not read.
 * Every item is read first and each decision asked for as soon as its slug is known, so the
 * round trip overlaps the reading of the other items; the checks then go in item order, so
 * without continue-on-fail the first item that fails is the one reported. A decision reused from
 * an earlier execution is fetched again before an input is refused against it; one kept for over a
 * minute serves the checks and is fetched again beside the run, once the checks are done (so no run
 * waits for that read: recent-decisions.ts).
 */
export async function prepareItems(
	n8n: IExecuteFunctions,
	items: INodeExecutionData[],
	client: DecisionClient,
	validate: boolean,
	skip?: (itemIndex: number) => Error | undefined,
): Promise<Prepared[]> {
	const continueOnFail = n8n.continueOnFail();
	const decisions = new Map<string, RecentDecision>();
	const read: Array<Prepared | { skipped: Error }> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const skipped = skip?.(itemIndex);
		if (skipped) {
			read.push({ skipped });
			continue;
		}
		try {
			const slug = slugOf(n8n, itemIndex);
			if (!slug) {
				throw new NodeOperationError(n8n.getNode(), 'No decision selected', {
					itemIndex,
				});
			}
			const input = inputFor(n8n, items[itemIndex], itemIndex);
			if (validate && !decisions.has(slug)) {
				const asked = client.recentDecision(slug);
				// Awaited below, in item order; until then a failure must not go unhandled.
				asked.decision.catch(() => undefined);
				decisions.set(slug, asked);
			}
			read.push({ slug, input });
		} catch (error) {
			read.push({ error: toNodeError(n8n.getNode(), error, itemIndex) });
			// Without continue-on-fail this item fails the node unless an earlier one fails its check.
			if (!continueOnFail) break;
		}
	}
	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < read.length; itemIndex++) {
		const entry = read[itemIndex];
		if ('skipped' in entry) {
			prepared.push({ error: entry.skipped });
			continue;
		}
		try {
			if ('error' in entry) throw entry.error;
			if (validate) {
				let asked = decisions.get(entry.slug)!;
				let invalid = validationError(n8n, await asked.decision, entry.input, itemIndex);
				if (invalid && asked.reused) {
					asked = client.recentDecision(entry.slug, true);
					decisions.set(entry.slug, asked);
					invalid = validationError(n8n, await asked.decision, entry.input, itemIndex);
				}
				if (invalid) throw invalid;
			}
			prepared.push(entry);
		} catch (error) {
			const nodeError = toNodeError(n8n.getNode(), error, itemIndex);
			if (!continueOnFail) throw stoppedTheNode(n8n, nodeError, items.length);
			prepared.push({ error: nodeError });
		}
	}
	for (const asked of decisions.values()) asked.refresh?.();
	return prepared;
}
