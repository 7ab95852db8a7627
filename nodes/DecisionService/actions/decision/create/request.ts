/**
 * The POST /decisions body of one item, one typed builder per shape: the contract's types check
 * every field here, where a mistake would otherwise only show as the service's 400.
 *
 * Which node parameter fills which API field (parameter names stay: saved workflows use them).
 *
 * | node parameter (editor label)                | API field                  | shapes                  |
 * |----------------------------------------------|----------------------------|-------------------------|
 * | `createFrom` (Create From)                   | which body: template / describe / definition | all   |
 * | `template` (Template Name or ID)            | `template`                 | template                |
 * | `locale` (Template Locale)                   | `locale`                   | template                |
 * | `describe` (What the Decision Should Do)    | `describe`                 | description             |
 * | `decisionName` (Name)                        | `name`                     | definition              |
 * | `decisionType` (Type)                        | `type`                     | definition              |
 * | `instructions` (Instructions)                | `instructions`             | definition              |
 * | `itemsMode` + `itemsText` / `itemsList`      | `options` / `levels` / `labels` (by type) | definition |
 * | `contextFields` (Context Fields)             | `context.fields`           | definition              |
 * | additional `contextDescription` (Context Description) | `context.description`      | definition              |
 * | additional `customName` (Name)               | `name`                     | template, description   |
 * | additional `imposedType` (Type)              | `type`                     | description             |
 * | additional `summary` (Summary)               | `description`              | all                     |
 * | additional `slug` (Slug)                     | `slug`                     | all                     |
 * | additional `publish` (Publish)               | `publish` (sent only when false) | all               |
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

/** The Additional Fields collection; each field's API name is in the table above. */
interface AdditionalFields {
	/** → `context.description` */
	contextDescription?: string;
	/** → `description` */
	summary?: string;
	/** → `name` (template, description) */
	customName?: string;
	/** → `publish` */
	publish?: boolean;
	/** → `slug` */
	slug?: string;
	/** → `type` (description) */
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
	n8n: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromTemplate {
	const request: CreateFromTemplate = {
		...commonFields(additional),
		template: n8n.getNodeParameter('template', itemIndex) as string,
		locale: n8n.getNodeParameter('locale', itemIndex, 'en') as Locale,
	};
	const name = trimmed(additional.customName);
	if (name) request.name = name;
	return request;
}

export function descriptionRequest(
	n8n: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDescription {
	const request: CreateFromDescription = {
		...commonFields(additional),
		describe: n8n.getNodeParameter('describe', itemIndex) as string,
	};
	const name = trimmed(additional.customName);
	if (name) request.name = name;
	if (additional.imposedType) request.type = additional.imposedType;
	return request;
}

/** The Items list entries with a key, trimmed. */
function listedItems(
	n8n: IExecuteFunctions,
	itemIndex: number,
): Array<Required<Pick<ListedItem, 'key'>> & ListedItem> {
	const list =
		(n8n.getNodeParameter('itemsList', itemIndex, {}) as { item?: ListedItem[] }).item ?? [];
	return list.flatMap((entry) => {
		const key = trimmed(entry.key);
		return key ? [{ ...entry, key, description: trimmed(entry.description) }] : [];
	});
}

/** The definition's context: its declared fields (named ones only) and description. */
function definitionContext(
	n8n: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDefinition['context'] {
	const entered =
		(n8n.getNodeParameter('contextFields', itemIndex, {}) as { field?: ContextFieldInput[] })
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
	n8n: IExecuteFunctions,
	itemIndex: number,
	additional: AdditionalFields,
): CreateFromDefinition {
	const type = n8n.getNodeParameter('decisionType', itemIndex) as DecisionType;
	const base = {
		...commonFields(additional),
		name: n8n.getNodeParameter('decisionName', itemIndex) as string,
		instructions: n8n.getNodeParameter('instructions', itemIndex) as string,
		context: definitionContext(n8n, itemIndex, additional),
	};
	if (base.context === undefined) delete base.context;
	const asText = n8n.getNodeParameter('itemsMode', itemIndex) === 'text';
	const text = asText ? String(n8n.getNodeParameter('itemsText', itemIndex) ?? '') : '';
	const listed = asText ? [] : listedItems(n8n, itemIndex);
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
export function createRequest(n8n: IExecuteFunctions, itemIndex: number): CreateDecisionRequest {
	const additional = n8n.getNodeParameter('additionalFields', itemIndex, {}) as AdditionalFields;
	const shape = n8n.getNodeParameter('createFrom', itemIndex) as string;
	if (shape === 'template') return templateRequest(n8n, itemIndex, additional);
	if (shape === 'description') return descriptionRequest(n8n, itemIndex, additional);
	return definitionRequest(n8n, itemIndex, additional);
}
