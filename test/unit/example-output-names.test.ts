/**
 * The examples' Decide and Review nodes open with their *Output names* boxes filled, as a node
 * added anew does. A box shows the saved `routes.value[<entry id>]`; n8n's editor fills `value`
 * for a new node from each entry's `defaultValue` (list.ts `entry()`: the output's name), null
 * for a removed entry or one without, and drops the nulls when it saves (n8n 2.41.1
 * ResourceMapper.vue `setDefaultFieldValues`, then `emitValueChanged`). An example saved with
 * `value: {}` showed every box empty. The schema itself is checked against a fresh pick in
 * test/sandbox/examples-outputs.test.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
	OUTPUTS_LIST_PARAMETER,
	type OutputsListEntry,
} from '../../nodes/DecisionService/outputs/list';

type Entry = OutputsListEntry & { defaultValue?: unknown };
interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
}

const EXAMPLES = join(__dirname, '..', '..', 'examples');

const lists = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.flatMap((file) => {
		const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as {
			nodes: ExampleNode[];
		};
		return workflow.nodes
			.filter(
				(node) =>
					node.type.endsWith('.decisionService') &&
					OUTPUTS_LIST_PARAMETER in node.parameters &&
					// Single Output keeps an empty list: a node that never routed has no boxes.
					node.parameters.outputMode !== 'singleOutput',
			)
			.map(
				(node) =>
					[
						`${file} › ${node.name}`,
						node.parameters[OUTPUTS_LIST_PARAMETER] as {
							schema: Entry[];
							value: Record<string, unknown> | null;
						},
					] as const,
			);
	});

/** What n8n's editor saves as `value` for a node added anew with this schema. */
const newNodeValue = (schema: Entry[]) =>
	Object.fromEntries(
		schema
			.filter((entry) => !entry.removed && entry.defaultValue != null)
			.map((entry) => [entry.id, entry.defaultValue]),
	);

it('every example with an Outputs list is checked', () => {
	const files = new Set(lists.map(([name]) => name.split(' › ')[0]));
	for (const file of [
		'ticket-routing.json',
		'lead-scoring.json',
		'content-labels.json',
		'ticket-routing-review.json',
		'ticket-routing-audit.json',
	])
		expect(files).toContain(file);
	// The review example: Decide and Review.
	expect(lists.filter(([name]) => name.startsWith('ticket-routing-review.json'))).toHaveLength(2);
});

describe.each(lists)('%s', (_name, routes) => {
	it('no shown box is empty: each holds its output’s name', () => {
		const shown = routes.schema.filter((entry) => entry.display !== false && !entry.removed);
		expect(shown.length).toBeGreaterThan(0);
		const boxes = shown.map((entry) => [entry.id, routes.value?.[entry.id]]);
		expect(boxes).toEqual(shown.map((entry) => [entry.id, entry.displayName]));
	});

	it('the names are saved as a new node saves them', () => {
		expect(routes.value).toEqual(newNodeValue(routes.schema));
	});
});

/**
 * A form n8n's editor shows writes its whole state the first time the node is opened (n8n 2.41.1
 * ResourceMapper.vue: `value`, `matchingColumns`, `schema` and the two conversion flags): an
 * example saved without them counts as "changed" after its first run ("Node parameters have
 * changed", test/ui/first-day.test.ts). Every form an example's node shows is saved whole.
 */
describe('the forms an example node shows are saved whole', () => {
	const WHOLE = [
		'attemptToConvertTypes',
		'convertFieldsToString',
		'mappingMode',
		'matchingColumns',
		'schema',
		'value',
	];
	const forms = readdirSync(EXAMPLES)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.flatMap((file) => {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as {
				nodes: ExampleNode[];
			};
			return workflow.nodes
				.filter((node) => node.type.endsWith('.decisionService'))
				.flatMap((node) => {
					const parameters = node.parameters;
					const operation = parameters.operation ?? 'decide';
					const shown: string[] = [];
					// Context Fields: Map Fields is the default input of Decide, Review and Evaluate.
					if (['decide', 'review', 'evaluate'].includes(String(operation)))
						if ((parameters.inputMode ?? 'mapFields') === 'mapFields') shown.push('inputFields');
					// The Outputs list: Decide under both Output options, and Review.
					if (['decide', 'review'].includes(String(operation))) shown.push(OUTPUTS_LIST_PARAMETER);
					return shown.map(
						(parameter) =>
							[`${file} › ${node.name} › ${parameter}`, parameters[parameter]] as const,
					);
				});
		});

	test.each(forms)('%s', (_name, form) => {
		expect(Object.keys((form ?? {}) as object).sort()).toEqual(WHOLE);
	});
});
