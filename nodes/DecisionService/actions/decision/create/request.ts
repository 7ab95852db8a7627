/**
 * The POST /decisions body of one item, one typed builder per shape: the contract's types check
 * every field here, where a mistake would otherwise only show as the service's 400.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import {
	BOUNDS,
	type ContextFieldInput,
	type CreateDecisionRequest,
	type CreateFromDefinition,
	type CreateFromDescription,
	type CreateFromTemplate,
	type DecisionType,
	type Locale,
} from '../../../../../src/contract';
import { splitItemList } from '../../../../../src/contract/validation';

interface AdditionalFields {
	contextDescription?: string;
	summary?: string;
	customName?: string;
	publish?: boolean;
	slug?: string;
	imposedType?: DecisionType;
}

/** One entry of the Items list: a key (or a level's label), a description, a threshold. */
interface ListedItem {
	key?: string;
	description?: string;
	threshold?: number;
}

/** The fields every shape may carry. */
type CommonFields = Pick<CreateFromTemplate, 'slug' | 'description' | 'publish'>;

function trimmed(value: string | undefined): string | undefined {
	const text = value?.trim();
	return text ? text : undefined;
}

function commonFields(additional: AdditionalFields): CommonFields {
	const fields: CommonFields = {};
	const slug = trimmed(additional.slug);
	const summary = trimmed(additional.summary);
	if (slug) fields.slug = slug;
	if (summary) fields.description = summary;
	if (additional.publish === false) fields.publish = false;
	return fields;
}

export function templateRequest(
	context: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromTemplate {
	const request: CreateFromTemplate = {
		...commonFields(additional),
		template: context.getNodeParameter('template', itemIndex) as string,
		locale: context.getNodeParameter('locale', itemIndex, 'en') as Locale,
	};
	const name = trimmed(additional.customName);
	if (name) request.name = name;
	return request;
}

export function descriptionRequest(
	context: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDescription {
	const request: CreateFromDescription = {
		...commonFields(additional),
		describe: context.getNodeParameter('describe', itemIndex) as string,
	};
	const name = trimmed(additional.customName);
	if (name) request.name = name;
	if (additional.imposedType) request.type = additional.imposedType;
	return request;
}

/** The Items list entries with a key, trimmed. */
function listedItems(
	context: IExecuteFunctions,
	itemIndex: number,
): Array<Required<Pick<ListedItem, 'key'>> & ListedItem> {
	const list =
		(context.getNodeParameter('itemsList', itemIndex, {}) as { item?: ListedItem[] }).item ?? [];
	return list.flatMap((entry) => {
		const key = trimmed(entry.key);
		return key ? [{ ...entry, key, description: trimmed(entry.description) }] : [];
	});
}

/** The definition's context: its declared fields (named ones only) and description. */
function definitionContext(
	context: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDefinition['context'] {
	const entered =
		(context.getNodeParameter('contextFields', itemIndex, {}) as { field?: ContextFieldInput[] })
			.field ?? [];
	const fields = entered.flatMap((field): ContextFieldInput[] => {
		const name = trimmed(field.name);
		if (!name) return [];
		const { description, ...rest } = field;
		return [
			{ ...rest, name, ...(trimmed(description) ? { description: trimmed(description) } : {}) },
		];
	});
	const description = trimmed(additional.contextDescription);
	if (!fields.length && !description) return undefined;
	return { ...(description ? { description } : {}), fields };
}

export function definitionRequest(
	context: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDefinition {
	const type = context.getNodeParameter('decisionType', itemIndex) as DecisionType;
	const base = {
		...commonFields(additional),
		name: context.getNodeParameter('decisionName', itemIndex) as string,
		instructions: context.getNodeParameter('instructions', itemIndex) as string,
		context: definitionContext(context, itemIndex, additional),
	};
	if (base.context === undefined) delete base.context;
	const asText = context.getNodeParameter('itemsMode', itemIndex) === 'text';
	const text = asText ? String(context.getNodeParameter('itemsText', itemIndex) ?? '') : '';
	const listed = asText ? [] : listedItems(context, itemIndex);
	const described = (entry: ListedItem) =>
		entry.description ? { description: entry.description } : {};
	switch (type) {
		case 'route':
			// Options may be one string in the API; the service splits it.
			return {
				...base,
				type,
				options: asText ? text : listed.map((entry) => ({ key: entry.key, ...described(entry) })),
			};
		case 'score':
			return {
				...base,
				type,
				levels: asText
					? splitItemList(text)
					: listed.map((entry) => ({ label: entry.key, ...described(entry) })),
			};
		case 'classify':
			return {
				...base,
				type,
				labels: asText
					? splitItemList(text)
					: listed.map((entry) => ({
							key: entry.key,
							...described(entry),
							threshold: entry.threshold ?? BOUNDS.labelThresholdDefault,
						})),
			};
	}
}

/** The body for one item, in the shape the user picked under "Create From". */
export function createRequest(
	context: IExecuteFunctions,
	itemIndex: number,
): CreateDecisionRequest {
	const additional = context.getNodeParameter(
		'additionalFields',
		itemIndex,
		{},
	) as AdditionalFields;
	const shape = context.getNodeParameter('createFrom', itemIndex) as string;
	if (shape === 'template') return templateRequest(context, itemIndex, additional);
	if (shape === 'description') return descriptionRequest(context, itemIndex, additional);
	return definitionRequest(context, itemIndex, additional);
}
