/**
 * Outputs whose connections never change meaning. A workflow is saved with a wire on every output
 * of the node (each option, Uncertain, Pending Review, Other and n8n's error output), each wire to
 * its own downstream node. The decision then changes on the service (an option added first, last
 * and in the middle, one removed, all reordered, the uncertainty policy changed, a classify label
 * added), the Outputs list is refreshed the way n8n's editor does it, and real items are routed
 * through n8n-core: every downstream node receives exactly the items of its meaning.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { configuredOutputs } from '../../nodes/DecisionService/outputs';
import { runWired } from '../../harness/n8n-tools';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { decideParameters, loadRoutes, refreshRoutes } from './helpers';

let sb: TestSandbox;
const leaks: string[] = [];

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
	for (const key of Object.values(DEMO_KEYS)) expect(leaks.join('\n')).not.toContain(key);
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

/** What an output means, from its name on the canvas: the wire's target is named after it. */
function meaningOfOutput(name: string): string {
	if (name === 'Uncertain') return 'uncertain';
	if (name === 'Pending Review') return 'pending';
	if (name === 'Other') return 'other';
	if (name === 'Error' || name === 'Error (kept in place)') return 'error';
	return `key:${name.replace(/ \(no longer on the service\)$/, '')}`;
}

/** The node's outputs as the canvas shows them, n8n's error output last (On Error: error output). */
function canvasOutputs(parameters: INodeParameters): string[] {
	return [...configuredOutputs(parameters).map((output) => output.displayName ?? 'main'), 'Error'];
}

/** The wires a user draws: every output to the downstream node of its meaning. */
function wireEverything(parameters: INodeParameters): Array<string | undefined> {
	return canvasOutputs(parameters).map(meaningOfOutput);
}

/**
 * After a refresh the saved wires stay on their indexes (n8n keeps connections by index); the user
 * wires the new outputs the refresh added after them, and leaves n8n's moved error output alone.
 */
function wiresAfterRefresh(
	saved: Array<string | undefined>,
	parameters: INodeParameters,
): Array<string | undefined> {
	const outputs = canvasOutputs(parameters);
	return outputs.map((name, index) => {
		if (index < saved.length) return saved[index];
		return index === outputs.length - 1 ? undefined : meaningOfOutput(name);
	});
}

/** Where an item must arrive, from the answer it got (read on the node's own output data). */
function meaningOfAnswer(
	item: INodeExecutionData,
	keysWithOutput: string[],
	wired: Set<string>,
): string | undefined {
	if (item.json.error !== undefined) return 'error';
	const decision = item.json.decision as IDataObject;
	if (decision.status === 'pending') return 'pending';
	if (decision.status === 'uncertain') return 'uncertain';
	const keys = Array.isArray(decision.labels)
		? (decision.labels as string[])
		: [String(decision.choice ?? decision.level)];
	const meanings = keys.map((key) => (keysWithOutput.includes(key) ? `key:${key}` : 'other'));
	if (Array.isArray(decision.labels) && decision.labels.length === 0) meanings.push('key:No Label');
	return [...new Set(meanings)].filter((meaning) => wired.has(meaning)).join('+') || undefined;
}

/**
 * Which input item a downstream node received: told apart by their text, or for n8n's error output
 * (which adds the input's fields only when the node has a parent, unlike here) by the item number
 * in the message.
 */
function inputIndex(items: IDataObject[], item: INodeExecutionData): number {
	const numbered = /^Item (\d+):/.exec(String(item.json.error ?? ''));
	if (numbered && item.json.body === undefined) return Number(numbered[1]);
	const index = items.findIndex(
		(input) => input.body === item.json.body && input.text === item.json.text,
	);
	if (index === -1) throw new Error(`an item no input matches: ${JSON.stringify(item.json)}`);
	return index;
}

interface Step {
	label: string;
	result: Awaited<ReturnType<typeof runWired>>;
	wires: Array<string | undefined>;
	parameters: INodeParameters;
}

/** Routes `items`, then asserts that each downstream node received exactly the items of its meaning. */
async function routeAndCheck(
	label: string,
	parameters: INodeParameters,
	wires: Array<string | undefined>,
	items: IDataObject[],
): Promise<Step> {
	const result = await runWired({
		parameters,
		onError: 'continueErrorOutput',
		wires,
		items,
		credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
	});
	leaks.push(result.serialised);
	// The answers as the node put them on its own outputs (the error output holds the failures).
	const nodeOutputs = result.run.data.resultData.runData['Decision Service'][0].data!.main;
	const answers = new Map<number, INodeExecutionData>();
	for (const output of nodeOutputs)
		for (const item of output ?? []) answers.set((item.pairedItem as { item: number }).item, item);
	const names = canvasOutputs(parameters);
	const keysWithOutput = names
		.map(meaningOfOutput)
		.filter((meaning) => meaning.startsWith('key:'))
		.map((meaning) => meaning.slice(4));
	const wired = new Set(wires.filter((wire): wire is string => !!wire));
	const expected: Record<string, number[]> = {};
	for (const meaning of wired) expected[meaning] = [];
	for (let index = 0; index < items.length; index++) {
		const meaning = meaningOfAnswer(answers.get(index)!, keysWithOutput, wired);
		for (const each of meaning ? meaning.split('+') : []) expected[each].push(index);
	}
	const received: Record<string, number[]> = {};
	for (const meaning of wired) {
		received[meaning] = (result.received[meaning] ?? [])
			.map((item) => inputIndex(items, item))
			.sort((a, b) => a - b);
	}
	expect({ label, received }).toEqual({ label, received: expected });
	return { label, result, wires, parameters };
}

const ticket = (subject: string, body: string): IDataObject => ({ subject, body });
const TICKETS: IDataObject[] = [
	ticket('Refund', 'I was charged twice on my invoice, please refund the duplicate payment.'),
	ticket('Crash', 'The app crashes with an error every time I log in since the last update.'),
	ticket('Quote', 'We want a quote and pricing for 200 seats, can we talk to sales about a demo?'),
	ticket('Password', 'Please reset my password and change the e-mail address of my account.'),
	ticket('hello', 'hello'),
	{ body: 'This ticket lost its subject on the way.' },
	ticket('Lawyer', 'Our lawyer needs the GDPR data processing agreement and the legal contract.'),
	ticket('Reseller', 'We are an agency and want to join the reseller partner program.'),
	ticket('Cookies', 'Delete all my personal data and stop tracking cookies, privacy request.'),
];

const NEW_OPTIONS = {
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

async function publish(slug: string, body: IDataObject): Promise<void> {
	await sb.control('POST', `/decisions/${slug}/versions`, { key: DEMO_KEYS.pro, ...body });
}

function choiceOf(step: Step, index: number): unknown {
	for (const output of step.result.run.data.resultData.runData['Decision Service'][0].data!.main)
		for (const item of output ?? [])
			if ((item.pairedItem as { item: number }).item === index)
				return (item.json.decision as IDataObject | undefined)?.choice;
	return undefined;
}

describe('a route decision changing on the service, refreshed each time', () => {
	it('keeps every wire on its meaning: options added first, last, in the middle, one removed, reordered, policy changed', async () => {
		const credentials = { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl };
		let parameters = decideParameters(
			'ticket-routing',
			await loadRoutes('ticket-routing', credentials),
		);
		let wires = wireEverything(parameters);
		expect(wires).toEqual([
			'key:billing',
			'key:technical',
			'key:sales',
			'key:account',
			'uncertain',
			'pending',
			'other',
			'error',
		]);
		const first = await routeAndCheck('saved', parameters, wires, TICKETS);
		// Sanity: the scenario reaches the wires it is about.
		expect(first.result.received.error).toHaveLength(1);
		expect(first.result.received.pending.length).toBeGreaterThanOrEqual(1);

		const refresh = async (label: string) => {
			const routes = await refreshRoutes(parameters, credentials);
			const next = { ...parameters, routes };
			const before = canvasOutputs(parameters);
			const after = canvasOutputs(next);
			// Statically: every wired index keeps its meaning.
			wires.forEach((wire, index) => {
				if (wire)
					expect({ label, index, meaning: meaningOfOutput(after[index]) }).toEqual({
						label,
						index,
						meaning: meaningOfOutput(before[index]),
					});
			});
			wires = wiresAfterRefresh(wires, next);
			parameters = next;
			return routeAndCheck(label, parameters, wires, TICKETS);
		};

		await publish('ticket-routing', {
			options: [NEW_OPTIONS.legal, 'billing', 'technical', 'sales', 'account'],
		});
		// Before the refresh, the new option's items go to Other.
		const drift = await routeAndCheck('legal added, not refreshed', parameters, wires, TICKETS);
		expect(choiceOf(drift, 6)).toBe('legal');
		expect(drift.result.received.other.map((item) => inputIndex(TICKETS, item))).toContain(6);

		const legalFirst = await refresh('legal added first');
		expect(choiceOf(legalFirst, 6)).toBe('legal');
		expect(canvasOutputs(parameters)).toEqual([
			'billing',
			'technical',
			'sales',
			'account',
			'Uncertain',
			'Pending Review',
			'Other',
			'Error (kept in place)',
			'legal',
			'Error',
		]);
		expect(legalFirst.result.received['key:legal']).toHaveLength(1);

		await publish('ticket-routing', {
			options: ['legal', 'billing', 'technical', 'sales', 'account', NEW_OPTIONS.partners],
		});
		const partnersLast = await refresh('partners added last');
		expect(choiceOf(partnersLast, 7)).toBe('partners');

		await publish('ticket-routing', {
			options: [
				'legal',
				'billing',
				'technical',
				NEW_OPTIONS.privacy,
				'sales',
				'account',
				'partners',
			],
		});
		const privacyMiddle = await refresh('privacy added in the middle');
		expect(choiceOf(privacyMiddle, 8)).toBe('privacy');

		await publish('ticket-routing', {
			options: ['legal', 'billing', 'technical', 'privacy', 'account', 'partners'],
		});
		await refresh('sales removed');
		expect(canvasOutputs(parameters)).toContain('sales (no longer on the service)');

		await publish('ticket-routing', {
			options: ['partners', 'account', 'privacy', 'technical', 'billing', 'legal'],
		});
		const reordered = await refresh('options reordered');
		expect(canvasOutputs(reordered.parameters)).toEqual(canvasOutputs(parameters));

		await publish('ticket-routing', { uncertainty_policy: 'uncertain_branch' });
		const policy = await refresh('uncertainty policy changed');
		expect(policy.result.received.uncertain.length).toBeGreaterThanOrEqual(1);
		expect(policy.result.received.pending).toEqual([]);

		// The user removes the option the service dropped: its output goes (an explicit act).
		const routes = parameters.routes as unknown as {
			schema: Array<{ id: string; removed?: boolean }>;
		};
		const removed = {
			...parameters,
			routes: {
				...routes,
				schema: routes.schema.map((field) =>
					field.id === 'sales' ? { ...field, removed: true } : field,
				),
			},
		} as unknown as INodeParameters;
		expect(canvasOutputs(removed)).not.toContain('sales (no longer on the service)');
		const after = await refreshRoutes(removed, credentials);
		expect(
			(after as unknown as { schema: Array<{ id: string }> }).schema.map((field) => field.id),
		).not.toContain('sales');
	});
});

describe('a classify decision gaining a label, refreshed', () => {
	it('keeps every wire, and items sent to several labels arrive as separate copies', async () => {
		const credentials = { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl };
		let parameters: INodeParameters = {
			...decideParameters('content-labels', await loadRoutes('content-labels', credentials)),
		};
		const posts: IDataObject[] = [
			{ text: 'Limited offer!!! Buy cheap now, discount coupon, click here to win a free prize' },
			{ text: 'How do I export my data? Can you help?' },
			{ text: 'The weather report for Tuesday afternoon mentions light clouds over the lake' },
			{ text: 'Your product is terrible and I want my money back, this is unacceptable' },
			{ text: 'Join our webinar about gardening tips on Thursday evening' },
		];
		let wires = wireEverything(parameters);
		await routeAndCheck('saved', parameters, wires, posts);

		await publish('content-labels', {
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
		});
		const routes = await refreshRoutes(parameters, credentials);
		const next = { ...parameters, routes };
		const before = canvasOutputs(parameters);
		const after = canvasOutputs(next);
		wires.forEach((wire, index) => {
			if (wire) expect(meaningOfOutput(after[index])).toBe(meaningOfOutput(before[index]));
		});
		expect(after.slice(-3)).toEqual(['Error (kept in place)', 'event', 'Error']);
		wires = wiresAfterRefresh(wires, next);
		parameters = next;
		const step = await routeAndCheck('event label added', parameters, wires, posts);
		expect(step.result.received['key:event']?.length ?? 0).toBeGreaterThanOrEqual(1);

		// The spam post reached several label outputs: each holds its own copy.
		const copies = step.result.run.data.resultData.runData['Decision Service'][0]
			.data!.main.flatMap((output) => output ?? [])
			.filter((item) => (item.pairedItem as { item: number }).item === 0);
		expect(copies.length).toBeGreaterThanOrEqual(2);
		(copies[0].json.decision as IDataObject).note = 'edited in one branch';
		copies[0].json.text = 'edited';
		for (const copy of copies.slice(1)) {
			expect((copy.json.decision as IDataObject).note).toBeUndefined();
			expect(copy.json.text).toBe(posts[0].text);
		}
	});
});
