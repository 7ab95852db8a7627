import type {
	FieldType,
	ILoadOptionsFunctions,
	ResourceMapperField,
	ResourceMapperFields,
	ResourceMapperValue,
} from 'n8n-workflow';
import { ownValue, type ContextField, type Decision } from '../../../src/contract';
import { auditFraction } from '../../../src/answer/audit';
import { forReview, OUTPUTS_LIST_PARAMETER, outputsListFor } from '../outputs/list';
import { toNodeError } from '../errors';
import { autoMapNotice } from '../pipeline/fields';
import { createDecisionClient } from '../transport';

async function currentDecision(n8n: ILoadOptionsFunctions): Promise<Decision | undefined> {
	const slug = String(n8n.getCurrentNodeParameter('decision', { extractValue: true }) ?? '').trim();
	if (!slug) return undefined;
	try {
		const client = await createDecisionClient(n8n);
		return await client.getDecision(slug);
	} catch (error) {
		throw toNodeError(n8n.getNode(), error);
	}
}

const FIELD_TYPES: Record<ContextField['type'], FieldType> = {
	string: 'string',
	number: 'number',
	boolean: 'boolean',
	object: 'object',
	array: 'array',
};

/** The decision's declared context fields, as the Decide input form. */
export async function getContextFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const decision = await currentDecision(this);
	// No decision yet: the node's own notice says to pick one (pickADecisionNotice).
	if (!decision) return { fields: [] };
	return {
		// n8n shows this where the fields would be when they are not shown, i.e. under Map
		// Automatically: the names that mode reads from each item.
		emptyFieldsNotice: autoMapNotice(decision.context.fields),
		fields: decision.context.fields.map(
			(field): ResourceMapperField => ({
				id: field.name,
				// Personal-data fields are marked so users know they are pseudonymised before any model call.
				displayName: field.pii ? `${field.name} (personal data)` : field.name,
				required: field.required,
				defaultMatch: false,
				canBeUsedToMatch: false,
				display: true,
				// Said from the start: n8n's editor adds `removed: false` to a field it loads again once
				// the form has values (after a run, say), and that change alone told the user the node's
				// parameters had changed since the run.
				removed: false,
				type: FIELD_TYPES[field.type],
			}),
		),
	};
}

/**
 * The Outputs list: one output per option (route), level, lowest first (score) or label (classify,
 * plus "No Label"), then Uncertain, Pending Review and Other. On a refresh, the list saved in the
 * node is merged with the decision as the service has it now, so no output changes meaning (see
 * outputs/list.ts): the editor saves whatever this returns.
 */
export async function getRouteOutputs(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const decision = await currentDecision(this);
	// No decision yet: the node's own notice says to pick one (pickADecisionNotice).
	if (!decision) return { fields: [] };
	const saved = this.getCurrentNodeParameter(OUTPUTS_LIST_PARAMETER) as
		| ResourceMapperValue
		| undefined;
	const savedSchema = Array.isArray(saved?.schema) ? saved.schema : [];
	// Single Output keeps a list it has (its outputs stay in place, empty) but starts none: a node
	// set to Single Output from the start has one output.
	if (
		this.getCurrentNodeParameter('outputMode') === 'singleOutput' &&
		!savedSchema.some((field) => field.display !== false)
	) {
		return { fields: [] };
	}
	// Decide's Audit Share set: the list gains an Audit output (kept once added, see list.ts).
	const options = this.getCurrentNodeParameter('options');
	const audit =
		this.getCurrentNodeParameter('operation') !== 'review' &&
		auditFraction(ownValue(options, 'auditShare')) > 0;
	const fields = outputsListFor(decision, savedSchema, { audit });
	// As a tool, the list only names the answers in the agent's description: shown, not edited.
	if (this.getNode().type.endsWith('Tool')) {
		return { fields: fields.map((field) => ({ ...field, readOnly: true })) };
	}
	// Review routes a person's answer, never uncertain or pending: the fixed rows are not its outputs.
	if (this.getCurrentNodeParameter('operation') === 'review') {
		return { fields: forReview(fields) };
	}
	return { fields };
}
