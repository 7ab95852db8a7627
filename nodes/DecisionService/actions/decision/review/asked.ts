/**
 * What the decision was asked about each item, as the team mapped it: the Decide node the items
 * came from is read (its input mode, its mapping), and its expressions are evaluated on each item
 * here (the item on Review's input is Decide's output item: the same fields plus the answer).
 * A Merge in Append mode between them counts as straight (the review example gathers Uncertain
 * and Pending Review so). Items that did not come straight from one Decide node show the
 * decision's declared fields found on the item by name, nothing else: the page shows no more than
 * the team mapped.
 *
 * The page is built where it is served (context.ts): n8n keeps a waiting node's input with the
 * execution but not its output, so everything here reads the input and the saved parameters,
 * through what an execution and a webhook have in common (ReviewHost).
 */
import type { INode, INodeExecutionData, NodeTypeAndVersion } from 'n8n-workflow';
import { ownObject, ownValue, type Decision } from '../../../../../src/contract';
import { inputFor, type DecideInput, type ParameterReader } from '../../../pipeline/input';

/** What building the page needs of n8n, in an execution and in a webhook alike. */
export interface ReviewHost {
	getNode(): INode;
	/** n8n's: the expression without its leading "=" (`{{ $json.x }}`), which n8n adds. */
	evaluateExpression(expression: string, itemIndex: number): unknown;
	getParentNodes(
		nodeName: string,
		options?: { includeNodeParameters?: boolean; depth?: number },
	): NodeTypeAndVersion[];
}

/** The Decide node this node's items came from (its saved parameters), if that is what feeds it. */
export interface DecideSource {
	name: string;
	parameters: Record<string, unknown>;
}

/**
 * The Decide node wired straight into this one, when it is the only node that is: items from
 * another node beside it would otherwise be read through Decide's mapping (all their fields, with
 * JSON left at the whole item), so then every item shows its declared fields only.
 */
export function decideSourceOf(n8n: ReviewHost): DecideSource | undefined {
	const self = n8n.getNode();
	const parentsOf = (name: string) =>
		n8n.getParentNodes(name, { includeNodeParameters: true, depth: 1 });
	let parents = parentsOf(self.name);
	if (new Set(parents.map((parent) => parent.name)).size !== 1) return undefined;
	// Decide's Uncertain and Pending Review gathered by a Merge (Append) into Review's one wire
	// (n8n runs a node once per wire that has items): the items are Decide's, as they came out.
	if (isAppendMerge(parents[0])) parents = parentsOf(parents[0].name);
	if (new Set(parents.map((parent) => parent.name)).size !== 1) return undefined;
	const decides = parents.filter((parent) => {
		if (parent.type !== self.type) return false;
		const parameters = (parent.parameters ?? {}) as Record<string, unknown>;
		return (
			(ownValue(parameters, 'resource') ?? 'decision') === 'decision' &&
			(ownValue(parameters, 'operation') ?? 'decide') === 'decide'
		);
	});
	if (decides.length !== 1) return undefined;
	return {
		name: decides[0].name,
		parameters: (decides[0].parameters ?? {}) as Record<string, unknown>,
	};
}

/** n8n's Merge node in Append mode (its default): each input's items, one list after the other. */
function isAppendMerge(node: NodeTypeAndVersion): boolean {
	if (node.type !== 'n8n-nodes-base.merge') return false;
	const mode = ownValue((node.parameters ?? {}) as Record<string, unknown>, 'mode');
	return mode === undefined || mode === 'append';
}

/** Defaults of the Decide parameters this file reads, for a node saved without them. */
const DECIDE_DEFAULTS: Record<string, unknown> = {
	inputMode: 'mapFields',
	text: '={{ $json.text }}',
	jsonInput: '={{ $json }}',
	inputFields: { mappingMode: 'defineBelow', value: null },
};

/** Every expression inside a saved value, evaluated on one item (a resource mapper's schema is data). */
function evaluated(n8n: ReviewHost, raw: unknown, itemIndex: number): unknown {
	if (typeof raw === 'string') {
		// A saved expression starts with "="; n8n's evaluateExpression adds its own.
		return raw.startsWith('=') ? n8n.evaluateExpression(raw.slice(1), itemIndex) : raw;
	}
	if (Array.isArray(raw)) return raw.map((each) => evaluated(n8n, each, itemIndex));
	if (typeof raw === 'object' && raw !== null) {
		return ownObject(
			Object.entries(raw).map(([key, value]): [string, unknown] => [
				key,
				key === 'schema' ? value : evaluated(n8n, value, itemIndex),
			]),
		);
	}
	return raw;
}

/** Decide's parameters read as Decide reads its own, so `inputFor` gives the input Decide sent. */
function readerOf(n8n: ReviewHost, source: DecideSource): ParameterReader {
	return {
		getNode: () => n8n.getNode(),
		getNodeParameter: (name, itemIndex, fallback, options) => {
			const saved = ownValue(source.parameters, name);
			const raw = saved === undefined ? (ownValue(DECIDE_DEFAULTS, name) ?? fallback) : saved;
			return options?.rawExpressions ? raw : evaluated(n8n, raw, itemIndex);
		},
	};
}

/** The decision's declared fields found on the item by name (for items not straight from Decide). */
function declaredFieldsOn(item: INodeExecutionData, decision: Decision): Record<string, unknown> {
	return ownObject(
		decision.context.fields.flatMap((field): Array<[string, unknown]> => {
			const value = ownValue(item.json, field.name);
			return value === undefined ? [] : [[field.name, value]];
		}),
	);
}

/** The field Decide writes its answer to (its Result Field option). */
export function resultFieldOf(source: DecideSource | undefined): string {
	const option = source
		? ownValue(ownValue(source.parameters, 'options'), 'resultField')
		: undefined;
	return typeof option === 'string' && option.trim() ? option.trim() : 'decision';
}

/**
 * The item as Decide got it, for an input that is the whole item (JSON's default, auto-map with
 * no fields): without the answer Decide wrote on it, or for a failed item its `error`.
 */
function asDecideGotIt(item: INodeExecutionData, resultField: string): INodeExecutionData {
	const added = ownValue(item.json, resultField) !== undefined ? resultField : 'error';
	return { ...item, json: ownObject(Object.entries(item.json).filter(([key]) => key !== added)) };
}

/** What each item asked, or undefined for an item whose input cannot be read again (shown without it). */
export function askedInputs(
	n8n: ReviewHost,
	items: INodeExecutionData[],
	decision: Decision,
	source: DecideSource | undefined,
): Array<DecideInput | undefined> {
	const reader = source ? readerOf(n8n, source) : undefined;
	const resultField = resultFieldOf(source);
	return items.map((item, itemIndex) => {
		if (!reader) return declaredFieldsOn(item, decision);
		try {
			return inputFor(reader, asDecideGotIt(item, resultField), itemIndex);
		} catch {
			// Decide failed this item locally (no input): the page shows the item without its fields.
			return undefined;
		}
	});
}

/** What each item asked and the field Decide wrote its answer to: the Decide node read once. */
export function askedOf(
	n8n: ReviewHost,
	items: INodeExecutionData[],
	decision: Decision,
): { asked: Array<DecideInput | undefined>; resultField: string } {
	const source = decideSourceOf(n8n);
	return { asked: askedInputs(n8n, items, decision, source), resultField: resultFieldOf(source) };
}
