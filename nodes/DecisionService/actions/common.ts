import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { LOCALES, type Locale } from '../../../src/contract';
import { toNodeError } from '../errors';

const LOCALE_NAMES: Record<Locale, string> = { en: 'English', fr: 'French' };

/** The template languages the API has, for Create from a template and Template → Get Many. */
export const localeOptions: INodePropertyOptions[] = LOCALES.map((value) => ({
	name: LOCALE_NAMES[value],
	value,
}));

// The decision picker lives with the fields that deciding shares (the pipeline sits below the
// operations); Get and Review take it from here.
export { decisionLocator } from '../pipeline/fields';

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/**
 * The loop of every one-output operation: one call per item, its result (an object or a list of
 * them) as output items paired with the input item, and continue-on-fail handled the n8n way.
 */
export async function runPerItem(
	n8n: IExecuteFunctions,
	items: INodeExecutionData[],
	call: (itemIndex: number) => Promise<object | object[]>,
): Promise<INodeExecutionData[][]> {
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const pairedItem = { item: itemIndex };
		try {
			const result = await call(itemIndex);
			// Answers are parsed JSON bodies: every value is JSON, which IDataObject holds.
			for (const json of Array.isArray(result) ? result : [result]) {
				returnData.push({ json: json as IDataObject, pairedItem });
			}
		} catch (error) {
			const nodeError = toNodeError(n8n.getNode(), error, itemIndex);
			if (!n8n.continueOnFail()) throw nodeError;
			returnData.push({ json: { error: nodeError.message }, pairedItem });
		}
	}
	return [returnData];
}

/** Applies Return All / Limit to a list the API returns whole. */
export function limitResults<T>(n8n: IExecuteFunctions, itemIndex: number, results: T[]): T[] {
	const returnAll = n8n.getNodeParameter('returnAll', itemIndex, false) as boolean;
	return returnAll
		? results
		: results.slice(0, n8n.getNodeParameter('limit', itemIndex, 50) as number);
}
