/**
 * What the stable-outputs tests share (in n8n-core and in real n8n): the editor's refresh of the
 * Outputs list, the meaning of each output from its name, the wires a user draws, and where each
 * item must arrive given the answer it got.
 */
import type {
	IDataObject,
	INodeParameters,
	ResourceMapperField,
	ResourceMapperValue,
} from 'n8n-workflow';
import { NodeHelpers, type INode } from 'n8n-workflow';
import { configuredOutputs } from '../../nodes/DecisionService/outputs/plan';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';

/** The seven outputs of the sandbox's ticket-routing decision, as the canvas names them. */
export const TICKET_ROUTING_OUTPUTS: readonly string[] = [
	'billing',
	'technical',
	'sales',
	'account',
	'Uncertain',
	'Pending Review',
	'Other',
];

/**
 * What n8n's editor saves after loading the Outputs list (ResourceMapper.vue,
 * loadAndSetFieldsToMap, n8n 2.41): the fields the node's method returned, in their order, each
 * keeping its saved `removed` flag (a new field is shown unless the value already names it).
 */
export function mergeLikeEditor(
	saved: Partial<ResourceMapperValue> | undefined,
	fields: ResourceMapperField[],
): INodeParameters {
	const savedSchema: ResourceMapperField[] = saved?.schema ?? [];
	const value = saved?.value ?? {};
	const schema = fields.map((field) => {
		const existing = savedSchema.find((each) => each.id === field.id);
		if (existing) return { ...field, removed: existing.removed };
		if (saved?.value !== null && !(field.id in value)) return { ...field, removed: false };
		return field;
	});
	return {
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		attemptToConvertTypes: false,
		convertFieldsToString: false,
		...(saved ?? {}),
		schema,
	} as unknown as INodeParameters;
}

/**
 * A parameter changed in n8n's editor: the editor recomputes the node's parameters with
 * n8n-workflow's getNodeParameters (NodeSettings.vue, valueChanged; no defaults kept), which
 * drops the value of every parameter no property shows, then keeps each wire on its output index
 * and drops those past the new number of outputs (revalidateNodeOutputConnections, n8n-editor-ui
 * 2.41.1). Returns the parameters and wires the editor leaves.
 */
export function changeLikeEditor(
	parameters: INodeParameters,
	change: INodeParameters,
	wires: Array<string | undefined>,
): { parameters: INodeParameters; wires: Array<string | undefined> } {
	const description = new DecisionService().description;
	const node = { parameters, type: 'n8n-nodes-decision-service.decisionService' } as INode;
	const next =
		NodeHelpers.getNodeParameters(
			description.properties,
			{ ...parameters, ...change },
			false,
			false,
			node,
			description,
		) ?? {};
	const count = canvasOutputs(next).length;
	return { parameters: next, wires: wires.slice(0, count) };
}

/** What an output means, from its name on the canvas: the wire's target is named after it. */
export function meaningOfOutput(name: string): string {
	if (name === 'Uncertain') return 'uncertain';
	if (name === 'Pending Review') return 'pending';
	if (name === 'Other') return 'other';
	if (name === 'Error' || name === 'Error (kept in place)') return 'error';
	return `key ${name.replace(/ \(no longer on the service\)$/, '')}`;
}

/** The node's outputs as the canvas shows them, n8n's error output last (On Error: error output). */
export function canvasOutputs(parameters: INodeParameters): string[] {
	return [...configuredOutputs(parameters).map((output) => output.displayName ?? 'main'), 'Error'];
}

/** The wires a user draws: every output to the downstream node of its meaning. */
export function wireEverything(parameters: INodeParameters): Array<string | undefined> {
	return canvasOutputs(parameters).map(meaningOfOutput);
}

/**
 * After a refresh the saved wires stay on their indexes (n8n keeps connections by index); the user
 * wires the new outputs the refresh added after them, and leaves n8n's moved error output alone.
 */
export function wiresAfterRefresh(
	saved: Array<string | undefined>,
	parameters: INodeParameters,
): Array<string | undefined> {
	const outputs = canvasOutputs(parameters);
	return outputs.map((name, index) => {
		if (index < saved.length) return saved[index];
		return index === outputs.length - 1 ? undefined : meaningOfOutput(name);
	});
}

/** Every wired index keeps its meaning from one Outputs list to the next. */
export function movedWires(
	wires: Array<string | undefined>,
	before: INodeParameters,
	after: INodeParameters,
): Array<{ index: number; was: string; now: string }> {
	const old = canvasOutputs(before);
	const now = canvasOutputs(after);
	return wires
		.map((wire, index) => ({ wire, index }))
		.filter(
			({ wire, index }) => wire && meaningOfOutput(old[index]) !== meaningOfOutput(now[index]),
		)
		.map(({ index }) => ({ index, was: old[index], now: now[index] }));
}

/** The meanings an answered (or failed) item must reach, among the wired ones. */
export function meaningsOfAnswer(
	json: IDataObject,
	parameters: INodeParameters,
	wired: Set<string>,
): string[] {
	if (json.error !== undefined) return wired.has('error') ? ['error'] : [];
	const decision = json.decision as IDataObject;
	if (decision.status === 'pending') return wired.has('pending') ? ['pending'] : [];
	if (decision.status === 'uncertain') return wired.has('uncertain') ? ['uncertain'] : [];
	const withOutput = new Set(
		canvasOutputs(parameters)
			.map(meaningOfOutput)
			.filter((meaning) => meaning.startsWith('key ')),
	);
	const keys = Array.isArray(decision.labels)
		? (decision.labels as string[])
		: [String(decision.choice ?? decision.level)];
	const meanings = keys.map((key) => (withOutput.has(`key ${key}`) ? `key ${key}` : 'other'));
	if (Array.isArray(decision.labels) && decision.labels.length === 0) meanings.push('key No Label');
	return [...new Set(meanings)].filter((meaning) => wired.has(meaning));
}

/**
 * Which input item a node received: told apart by their text, or (n8n's error output in n8n-core,
 * where the node has no parent to take the item's fields from) by `pairedIndex`, the input item
 * its lineage points at (n8n's messages do not number items; n8n's editor adds "[item N]").
 */
export function inputIndex(items: IDataObject[], json: IDataObject, pairedIndex?: number): number {
	if (json.body === undefined && json.text === undefined && pairedIndex !== undefined)
		return pairedIndex;
	const index = items.findIndex((input) => input.body === json.body && input.text === json.text);
	if (index === -1) throw new Error(`an item no input matches: ${JSON.stringify(json)}`);
	return index;
}

/** The input index an item's `pairedItem` points at (one item). */
export function pairedIndexOf(item: { pairedItem?: unknown }): number | undefined {
	const paired = Array.isArray(item.pairedItem) ? item.pairedItem[0] : item.pairedItem;
	if (typeof paired === 'number') return paired;
	const index = (paired as { item?: unknown } | undefined)?.item;
	return typeof index === 'number' ? index : undefined;
}

/**
 * Where each input must arrive, by wire meaning, from the answers read on the node's own outputs
 * (every item reaches at least one output; a classify item may reach several).
 */
export function expectedArrivals(
	items: IDataObject[],
	nodeOutputs: Array<Array<{ json: object; pairedItem?: unknown }> | null>,
	parameters: INodeParameters,
	wires: Array<string | undefined>,
): Record<string, number[]> {
	const wired = new Set(wires.filter((wire): wire is string => !!wire));
	const answers = new Map<number, IDataObject>();
	for (const output of nodeOutputs)
		for (const item of output ?? []) {
			const json = item.json as IDataObject;
			answers.set(inputIndex(items, json, pairedIndexOf(item)), json);
		}
	const expected: Record<string, number[]> = {};
	for (const meaning of wired) expected[meaning] = [];
	for (let index = 0; index < items.length; index++) {
		const answer = answers.get(index);
		if (!answer) throw new Error(`item ${index} reached no output of the node`);
		for (const meaning of meaningsOfAnswer(answer, parameters, wired))
			expected[meaning].push(index);
	}
	return expected;
}

export const TICKETS: IDataObject[] = [
	{
		subject: 'Refund',
		body: 'I was charged twice on my invoice, please refund the duplicate payment.',
	},
	{
		subject: 'Crash',
		body: 'The app crashes with an error every time I log in since the last update.',
	},
	{
		subject: 'Quote',
		body: 'We want a quote and pricing for 200 seats, can we talk to sales about a demo?',
	},
	{
		subject: 'Password',
		body: 'Please reset my password and change the e-mail address of my account.',
	},
	{ subject: 'hello', body: 'hello' },
	{ body: 'This ticket lost its subject on the way.' },
	{
		subject: 'Lawyer',
		body: 'Our lawyer needs the GDPR data processing agreement and the legal contract.',
	},
	{ subject: 'Reseller', body: 'We are an agency and want to join the reseller partner program.' },
	{
		subject: 'Cookies',
		body: 'Delete all my personal data and stop tracking cookies, privacy request.',
	},
];

/** Options a test publishes on ticket-routing, with the words the sandbox's engine matches. */
export const NEW_OPTIONS = {
	legal: {
		key: 'legal',
		description:
			'Legal matters: contracts, GDPR and data processing agreements, lawyers, terms, legal notices.',
	},
	partners: {
		key: 'partners',
		description: 'Partnerships: resellers, agencies, affiliates, joining the partner program.',
	},
	privacy: {
		key: 'privacy',
		description: 'Privacy requests: delete my personal data, tracking, cookies, data export.',
	},
};

/** The changes both tests publish, in order, with the label each step is reported under. */
export const ROUTE_CHANGES: Array<{ label: string; version: IDataObject }> = [
	{
		label: 'an option added first',
		version: { options: [NEW_OPTIONS.legal, 'billing', 'technical', 'sales', 'account'] },
	},
	{
		label: 'an option added last',
		version: {
			options: ['legal', 'billing', 'technical', 'sales', 'account', NEW_OPTIONS.partners],
		},
	},
	{
		label: 'an option added in the middle',
		version: {
			options: [
				'legal',
				'billing',
				'technical',
				NEW_OPTIONS.privacy,
				'sales',
				'account',
				'partners',
			],
		},
	},
	{
		label: 'an option removed',
		version: { options: ['legal', 'billing', 'technical', 'privacy', 'account', 'partners'] },
	},
	{
		label: 'options reordered',
		version: { options: ['partners', 'account', 'privacy', 'technical', 'billing', 'legal'] },
	},
	{ label: 'the uncertainty policy changed', version: { uncertainty_policy: 'uncertain_branch' } },
];

export const POSTS: IDataObject[] = [
	{ text: 'Limited offer!!! Buy cheap now, discount coupon, click here to win a free prize' },
	{ text: 'How do I export my data? Can you help?' },
	{ text: 'The weather report for Tuesday afternoon mentions light clouds over the lake' },
	{ text: 'Your product is terrible and I want my money back, this is unacceptable' },
	{ text: 'Join our webinar about gardening tips on Thursday evening' },
];

export const LABEL_ADDED: IDataObject = {
	labels: [
		'spam',
		'promotion',
		'question',
		'complaint',
		'toxic',
		{
			key: 'event',
			description: 'Events: a webinar, meetup, conference or workshop invitation, join us.',
		},
	],
};
