/**
 * The Outputs list as a node parameter: Decide's and Review's "Outputs" (Review shows its answer
 * entries only), the tool's read-only "Answers", and the notice under the list.
 */
import type { INodeProperties } from 'n8n-workflow';
import { OUTPUTS_LIST_PARAMETER } from './list';

/** The Outputs list Decide and Review share (Review shows its answer entries only). */
export const outputsListField: INodeProperties = {
	displayName: 'Outputs',
	name: OUTPUTS_LIST_PARAMETER,
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	required: true,
	typeOptions: {
		loadOptionsDependsOn: ['decision.value'],
		resourceMapper: {
			resourceMapperMethod: 'getRouteOutputs',
			mode: 'map',
			// Each box holds its output's name (list.ts fills it in): edit it to rename the output.
			valuesLabel: 'Output names',
			fieldWords: { singular: 'output', plural: 'outputs' },
			addAllFields: true,
			multiKeyMatch: false,
			supportAutoMap: false,
			hideNoDataError: true,
			noFieldsError: 'Pick a decision first: its options, levels or labels become the outputs.',
		},
	},
};

export const outputsListNotice: INodeProperties = {
	// A notice, not the list's hint: n8n shows no hint under a resource mapper.
	displayName:
		'No wire ever moves: a refresh keeps every output in place, and a deleted row keeps its output, empty and marked ✕ (its items go to Other). The canvas shows about 15 characters of a name.',
	name: 'routesNotice',
	type: 'notice',
	default: '',
};

/** Shown instead of the three empty areas while no decision is picked: one thing to do first. */
export const pickADecisionNotice: INodeProperties = {
	displayName: 'Pick a decision above: its context fields and its outputs appear here.',
	name: 'pickDecisionNotice',
	type: 'notice',
	default: '',
};

/** n8n reads a resource locator's value in displayOptions: this matches "no decision picked". */
export const NO_DECISION_PICKED = { decision: [''] };

// The tool variant: the same list, loaded when the decision is picked, names the answers in
// the description the agent reads. Nothing to fill in. n8n's editor reloads a list when the
// field it depends on changes only if it can resolve every parameter of the node, and the
// tool's Text, $fromAI(…), cannot be resolved before the agent has run. So the list is hidden
// until a decision is picked: it then appears anew, and a resource mapper that appears with no
// list loads one at once. Switched to another decision, it is reloaded whenever the panel opens
// and finds it saved for another decision (as n8n's own Call n8n Workflow Tool does).
// toolDescriptionOf never names a list saved for another decision.
export const toolAnswersField: INodeProperties = {
	displayName: 'Answers',
	name: OUTPUTS_LIST_PARAMETER,
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	typeOptions: {
		loadOptionsDependsOn: ['decision.value'],
		resourceMapper: {
			resourceMapperMethod: 'getRouteOutputs',
			mode: 'map',
			valuesLabel: 'Answers the decision can give',
			fieldWords: { singular: 'answer', plural: 'answers' },
			addAllFields: true,
			multiKeyMatch: false,
			supportAutoMap: false,
			refreshStaleSchemaOnOpen: true,
			noFieldsError: 'Pick a decision first: its answers are listed in the tool description.',
		},
	},
	displayOptions: { show: { '@tool': [true] }, hide: NO_DECISION_PICKED },
};
