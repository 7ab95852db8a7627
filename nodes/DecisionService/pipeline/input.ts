/** Reads one item's decide input in the three modes (Map Fields, Text, JSON) and its decision slug. */
import {
	NodeOperationError,
	type IGetNodeParameterOptions,
	type INode,
	type INodeExecutionData,
	type ResourceMapperValue,
} from 'n8n-workflow';
import { ownObject, ownValue } from '../../../src/contract';

export type DecideInput = string | Record<string, unknown>;

/**
 * What reading an input needs of n8n: the node's parameters for one item. Decide passes its own
 * context; Review passes a reader of the Decide node its items came from (review/asked.ts).
 */
export interface ParameterReader {
	getNode(): INode;
	getNodeParameter(
		name: string,
		itemIndex: number,
		fallback?: unknown,
		options?: IGetNodeParameterOptions,
	): unknown;
}

/** The JSON input's default, `={{ $json }}`: the whole item. */
const WHOLE_ITEM = /^=\{\{\s*\$json\s*\}\}$/;

function parseJsonInput(
	n8n: ParameterReader,
	raw: unknown,
	itemIndex: number,
): Record<string, unknown> {
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch {
			throw new NodeOperationError(n8n.getNode(), 'The JSON input is not valid JSON', {
				itemIndex,
			});
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw new NodeOperationError(n8n.getNode(), 'The JSON input must be an object', {
			itemIndex,
		});
	}
	// JSON.parse makes every key an own property (`__proto__` included); an object n8n evaluated
	// is copied the same way, so the input holds the item's own fields and nothing inherited.
	return ownObject(Object.entries(value));
}

const TEXT_HINT = 'Set Text to the item field that holds the text, for example {{ $json.body }}.';

function textInput(n8n: ParameterReader, itemIndex: number): string {
	const text = n8n.getNodeParameter('text', itemIndex) as unknown;
	// A number or a yes/no is text enough; an object (say {{ $json }}) or a list is not.
	if (typeof text === 'number' || typeof text === 'boolean') return String(text);
	if (typeof text === 'object' && text !== null) {
		const what = Array.isArray(text) ? 'a list' : 'an object';
		throw new NodeOperationError(n8n.getNode(), `Text is ${what}, not text`, {
			itemIndex,
			description: `${TEXT_HINT} To send every field of the item, choose Input: JSON.`,
		});
	}
	if (typeof text !== 'string' || text.trim() === '') {
		throw new NodeOperationError(n8n.getNode(), 'The Text input is empty', {
			itemIndex,
			description: TEXT_HINT,
		});
	}
	return text;
}

function mappedInput(
	n8n: ParameterReader,
	item: INodeExecutionData,
	itemIndex: number,
): Record<string, unknown> {
	// n8n's own check of the mapper would fail a missing field with a generic message; the
	// validation in execute names the item and the field, using the decision's context fields.
	const mapper = n8n.getNodeParameter('inputFields', itemIndex, undefined, {
		skipValidation: true,
	}) as ResourceMapperValue;
	const fields = (mapper.schema ?? []).map((field) => field.id);
	if (mapper.mappingMode === 'autoMapInputData') {
		// Auto-map: the item's own fields of the same names (an item without `constructor` has none:
		// the function it inherits is not its value), set as own keys even when named `__proto__`.
		const picked = fields.flatMap((name): Array<[string, unknown]> => {
			const value = ownValue(item.json, name);
			return value === undefined ? [] : [[name, value]];
		});
		return fields.length ? ownObject(picked) : ownObject(Object.entries(item.json));
	}
	const values = mapper.value ?? {};
	return ownObject(
		Object.entries(values).filter(
			([, value]) => value !== undefined && value !== null && value !== '',
		),
	);
}

/** The input one item sends, in the node's input mode. Throws, naming the item, when it has none. */
export function inputFor(
	n8n: ParameterReader,
	item: INodeExecutionData,
	itemIndex: number,
): DecideInput {
	const mode = n8n.getNodeParameter('inputMode', itemIndex) as string;
	if (mode === 'text') return textInput(n8n, itemIndex);
	if (mode === 'json') {
		// The default, the whole item, is read from the item itself: n8n's expression engine fails
		// to hand over an item with a field `constructor` ("function Object() could not be cloned",
		// n8n 2.41.1), and copies drop such fields.
		const raw = n8n.getNodeParameter('jsonInput', itemIndex, undefined, {
			rawExpressions: true,
		});
		if (typeof raw === 'string' && WHOLE_ITEM.test(raw)) {
			return parseJsonInput(n8n, item.json, itemIndex);
		}
		return parseJsonInput(n8n, n8n.getNodeParameter('jsonInput', itemIndex), itemIndex);
	}
	return mappedInput(n8n, item, itemIndex);
}

/** The decision slug of one item (the locator may be an expression). */
export function slugOf(n8n: ParameterReader, itemIndex: number): string {
	const value = n8n.getNodeParameter('decision', itemIndex, '', { extractValue: true });
	return String(value ?? '').trim();
}
