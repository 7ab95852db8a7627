/**
 * The loop on default settings, in real n8n, chained the way a team runs it: Webhook → One item
 * each → Decide → (Uncertain or Pending Review) → Review → a check node per answer → Merge →
 * Evaluate, for route, score and classify, with every option of Decide, Review and Evaluate at its
 * default (Evaluate's Send Expected Answers as Feedback turned on, to compare its encoding).
 *
 * The decision's live version is republished with a threshold no run reaches, so every item is
 * doubtful: uncertain (policy uncertain_branch) or pending (human_review, Pro). A reviewer over
 * HTTP agrees with the machine's guess, disagrees with a note, and for classify adds a label,
 * removes one and picks "No label applies"; one item is left for later. Then:
 * - every item is on the outputs of its pick (both outputs for two labels), the left one on Not
 *   Reviewed, and an expression on an earlier node (`$('One item each').item`) gives each item's
 *   own fields after Review and after Evaluate;
 * - one feedback per reviewed run from Review, in the one encoding (`correct` when the pick is the
 *   machine's guess, else the key, the labels joined with ",", or "no label"), and Evaluate's
 *   feedback on the same run says the same;
 * - nothing is decided twice (one decide per item, Evaluate scores the carried runs free, a run
 *   merged from two outputs counted once);
 * - Evaluate's figures and the guesses' figures recomputed here from the service's stored runs
 *   and the reviewer's picks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { CREDENTIAL_ID, CREDENTIAL_NAME, NODE_TYPE, type N8nInstance } from '../../harness/n8n-env';
import {
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
	startN8nWithWorkflows,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	openPage,
	parseForm,
	sectionsOf,
	submitForm,
	fillReview,
	waitingLinkIn,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import type { SandboxExchange } from '../../sandbox/server';
import type { Decision, DecisionType } from '../../src/contract';
import {
	forReview,
	freshOutputsList,
	NO_LABEL_KEY,
} from '../../nodes/DecisionService/outputs/list';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const MESSAGE = 'Message for reviewers';
const SPLIT = 'One item each';

interface Case {
	type: DecisionType;
	slug: string;
	/** The field that tells the items apart (shown on the review page). */
	marker: string;
	wiring: 'Uncertain' | 'Pending Review';
	items: Array<Record<string, unknown>>;
}

const TICKETS = [
	{ subject: 'Charged twice', body: 'I was charged twice on my invoice this month.' },
	{ subject: 'App crashes', body: 'The app crashes when I open the settings page.' },
	{ subject: 'Pricing for 30 seats', body: 'Could sales call us about a quote for our team?' },
	{ subject: 'Change my email', body: 'Please update the email address on my account.' },
	{ subject: 'Hello', body: 'Hi there, just a quick question.' },
];
const LEADS = [
	{ company: 'Acme', role: 'CEO', message: 'Budget approved, send the contract this week.' },
	{ company: 'Globex', role: 'Intern', message: 'Just browsing, maybe next year.' },
	{ company: 'Initech', role: 'CTO', message: 'We would like a demo and a price for 200 seats.' },
	{ company: 'Umbrella', role: 'Buyer', message: 'Comparing vendors, please send a brochure.' },
	{ company: 'Hooli', role: 'Founder', message: 'Interested, what does it cost?' },
];
const MESSAGES = [
	{ text: 'Limited time offer: use promo code SAVE20 for a discount!' },
	{ text: 'How do I reset my password?' },
	{ text: 'Your product is useless and your support is terrible.' },
	{ text: 'Win a free cruise, click this link now!!!' },
	{ text: 'Thanks for the quick reply yesterday.' },
];

const CASES: Case[] = (['Uncertain', 'Pending Review'] as const).flatMap((wiring) => [
	{ type: 'route', slug: 'ticket-routing', marker: 'subject', wiring, items: TICKETS },
	{ type: 'score', slug: 'lead-scoring', marker: 'company', wiring, items: LEADS },
	{ type: 'classify', slug: 'content-labels', marker: 'text', wiring, items: MESSAGES },
]);

const nameOf = (each: Case) => `${each.type}, ${each.wiring}`;
const idOf = (each: Case) =>
	`dsLoop${createHash('sha256').update(nameOf(each)).digest('hex').slice(0, 10)}`;
const pathOf = (each: Case) => `decision-service-loop-${idOf(each).toLowerCase()}`;
const uuid = (seed: string) =>
	createHash('sha256')
		.update(seed)
		.digest('hex')
		.slice(0, 32)
		.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/** The decision's keys as outputs name them (the Outputs list's entries, No Label included). */
function answerKeys(decision: Decision): string[] {
	const keys =
		decision.type === 'route'
			? decision.options
			: decision.type === 'score'
				? decision.levels
				: decision.labels;
	return decision.type === 'classify' ? [...(keys ?? []), NO_LABEL_KEY] : [...(keys ?? [])];
}

const checkName = (key: string) => `Check ${key}`;
const NOT_REVIEWED_CHECK = 'Check not reviewed';
const EVALUATE = 'Evaluate';
const AFTER_EVALUATE = 'Check after Evaluate';

/** The chained workflow, every option at its default. */
function loopWorkflow(each: Case, decision: Decision): WorkflowJson {
	const locator = { __rl: true, mode: 'list', value: decision.slug };
	const list = freshOutputsList(decision);
	const routes = { mappingMode: 'defineBelow', value: {}, matchingColumns: [], schema: list };
	const inputFields = {
		mappingMode: 'defineBelow',
		value: Object.fromEntries(
			decision.context.fields
				.filter((field) => field.name in each.items[0])
				.map((field) => [field.name, `={{ $json.${field.name} }}`]),
		),
		matchingColumns: [],
		schema: decision.context.fields.map((field) => ({
			id: field.name,
			displayName: field.name,
			required: field.required,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: field.type,
		})),
	};
	const keys = answerKeys(decision);
	const decideOutputs = [...keys, 'Uncertain', 'Pending Review', 'Other'];
	const node = (name: string, type: string, typeVersion: number, parameters: object, y = 0) => ({
		id: uuid(`${idOf(each)}/${name}`),
		name,
		type,
		typeVersion,
		position: [0, y] as [number, number],
		parameters,
	});
	const check = (name: string, y: number) =>
		node(
			name,
			'n8n-nodes-base.set',
			3.4,
			{
				assignments: {
					assignments: [
						{
							id: 'lineage',
							name: 'lineage',
							type: 'string',
							value: `={{ $('${SPLIT}').item.json.${each.marker} }}`,
						},
					],
				},
				includeOtherFields: true,
				options: {},
			},
			y,
		);
	const nodes = [
		{
			...node('Items in', 'n8n-nodes-base.webhook', 2, {
				httpMethod: 'POST',
				path: pathOf(each),
				responseMode: 'onReceived',
				options: {},
			}),
			webhookId: uuid(`${idOf(each)}/webhook`),
		},
		node(SPLIT, 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'body.items', options: {} }),
		{
			...node('Decide', NODE_TYPE, 1, {
				resource: 'decision',
				operation: 'decide',
				decision: locator,
				inputFields,
				routes,
				options: {},
			}),
			credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		},
		// Above Review on the canvas: n8n runs the upper branch first, so the link is written before
		// the execution waits.
		node(
			MESSAGE,
			'n8n-nodes-base.set',
			3.4,
			{
				assignments: {
					assignments: [
						{ id: 'a', name: 'review_link', type: 'string', value: '={{ $execution.resumeUrl }}' },
					],
				},
				includeOtherFields: false,
				options: {},
			},
			-400,
		),
		{
			...node(
				'Review',
				NODE_TYPE,
				1,
				{
					resource: 'decision',
					operation: 'review',
					decision: locator,
					routes: { ...routes, schema: forReview(list) },
				},
				0,
			),
			credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			webhookId: uuid(`${idOf(each)}/review`),
		},
		check(NOT_REVIEWED_CHECK, -200),
		...keys.map((key, index) => check(checkName(key), index * 100)),
		node('Merge answers', 'n8n-nodes-base.merge', 3.2, { numberInputs: keys.length }),
		{
			...node(EVALUATE, NODE_TYPE, 1, {
				resource: 'decision',
				operation: 'evaluate',
				decision: locator,
				inputFields,
				evaluateOptions: { sendFeedback: true },
			}),
			credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
		},
		check(AFTER_EVALUATE, 0),
	];
	const wiredAt = decideOutputs.indexOf(each.wiring);
	const connections: WorkflowJson['connections'] = {
		'Items in': { main: [[{ node: SPLIT, type: 'main', index: 0 }]] },
		[SPLIT]: { main: [[{ node: 'Decide', type: 'main', index: 0 }]] },
		Decide: {
			main: decideOutputs.map((_, index) =>
				index === wiredAt
					? [
							{ node: MESSAGE, type: 'main', index: 0 },
							{ node: 'Review', type: 'main', index: 0 },
						]
					: [],
			),
		},
		Review: {
			main: [
				[{ node: NOT_REVIEWED_CHECK, type: 'main', index: 0 }],
				...keys.map((key) => [{ node: checkName(key), type: 'main', index: 0 }]),
			],
		},
		...Object.fromEntries(
			keys.map((key, index) => [
				checkName(key),
				{ main: [[{ node: 'Merge answers', type: 'main', index }]] },
			]),
		),
		'Merge answers': { main: [[{ node: EVALUATE, type: 'main', index: 0 }]] },
		[EVALUATE]: { main: [[], [{ node: AFTER_EVALUATE, type: 'main', index: 0 }]] },
	};
	return {
		id: idOf(each),
		name: `Loop: ${nameOf(each)}`,
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	} as WorkflowJson;
}

/** What the reviewer does with the i-th item, given the machine's guess. */
interface Pick {
	keys?: string[];
	noLabel?: boolean;
	note?: string;
}

function picksFor(
	type: DecisionType,
	keys: string[],
	guesses: string[][],
): Array<Pick | undefined> {
	const other = (guess: string[]) => keys.find((key) => !guess.includes(key))!;
	if (type !== 'classify') {
		return [
			{ keys: guesses[0] },
			{ keys: [other(guesses[1])], note: 'Not this one.' },
			{ keys: guesses[2] },
			{ keys: [other(guesses[3])] },
			undefined,
		];
	}
	const labels = keys.filter((key) => key !== NO_LABEL_KEY);
	const added = [...guesses[1], other([...guesses[1], NO_LABEL_KEY])];
	const removed = guesses[2].length ? guesses[2].slice(1) : [labels[0]];
	return [
		guesses[0].length ? { keys: guesses[0] } : { noLabel: true },
		{ keys: added, note: 'One more applies.' },
		removed.length ? { keys: removed } : { noLabel: true },
		{ noLabel: true },
		undefined,
	];
}

/** The machine's guess on a stored run, computed here from the run as the service sent it. */
function guessOfRun(type: DecisionType, run: Record<string, unknown>, keys: string[]): string[] {
	if (type === 'classify') return (run.labels as string[]) ?? [];
	if (type === 'score') {
		const legend = run.legend as Record<string, string>;
		return [legend[String(Math.round(run.raw_score as number))]];
	}
	if (run.choice !== '__uncertain__') return [run.choice as string];
	const probabilities = run.probabilities as Record<string, number>;
	const best = Math.max(...Object.values(probabilities));
	return [keys.find((key) => probabilities[key] === best)!];
}

/** The one encoding, written here from the rule (not from the package's code). */
function expectedFeedback(keysInOrder: string[], pick: string[], guess: string[]): string {
	const same = pick.length === guess.length && pick.every((key) => guess.includes(key));
	if (same) return 'correct';
	if (pick.length === 0) return 'no label';
	return keysInOrder.filter((key) => pick.includes(key)).join(',');
}

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
const exchanges: SandboxExchange[] = [];

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2(`The loop on defaults in n8n ${n8nVersion()}`, () => {
	const decisions = new Map<string, Decision>();

	beforeAll(async () => {
		sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
		work = mkdtempSync(join(tmpdir(), 'decision-service-loop-'));
		for (const each of CASES) decisions.set(each.slug, await sb.client(KEY).getDecision(each.slug));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflows: CASES.map((each) => loopWorkflow(each, decisions.get(each.slug)!)),
		}));
	});

	describe.each(CASES)('$type, $wiring wired to Review', (each) => {
		let decision: Decision;
		let keys: string[];
		let finished: Execution;
		let runs: Array<Record<string, unknown>>;
		let stored: Array<{
			response: Record<string, unknown>;
			feedback_history?: Array<{ feedback: string; note?: string }>;
		}>;
		let picks: Array<Pick | undefined>;
		let guesses: string[][];
		let decidesBefore: number;
		let usedBefore: number;

		beforeAll(async () => {
			decision = decisions.get(each.slug)!;
			keys = answerKeys(decision);
			// A threshold no run reaches: every item is doubtful, uncertain or pending by the policy.
			await sb.control('POST', `/decisions/${each.slug}/versions`, {
				key: KEY,
				confidence_threshold: 1,
				uncertainty_policy: each.wiring === 'Uncertain' ? 'uncertain_branch' : 'human_review',
			});
			decidesBefore = exchanges.filter(isDecide(each.slug)).length;
			usedBefore = (await sb.usage(KEY)).used;
			const id = await triggerWebhook(session, idOf(each), pathOf(each), { items: each.items });
			const waiting = await waitForExecution(session, id, ['waiting']);
			const decided = waiting.outputs.Decide;
			const wiredAt = [...keys, 'Uncertain', 'Pending Review', 'Other'].indexOf(each.wiring);
			const doubtful = decided[wiredAt] ?? [];
			expect(doubtful.map((item) => item.json[each.marker])).toEqual(
				each.items.map((item) => item[each.marker]),
			);
			runs = await Promise.all(
				doubtful.map(async (item) => {
					const runId = (item.json.decision as { run_id: string }).run_id;
					return (await sb.control('GET', `/runs/${runId}?key=${KEY}`)) as Record<string, unknown>;
				}),
			);
			guesses = runs.map((run) =>
				guessOfRun(each.type, run.response as Record<string, unknown>, keys),
			);
			picks = picksFor(each.type, keys, guesses);

			const link = waitingLinkIn(waiting, MESSAGE);
			const page = await openPage(link);
			expect(page.status).toBe(200);
			const form = parseForm(page.html);
			const markers = each.items.map((item) => String(item[each.marker]));
			fillReview(
				page.html,
				form,
				picks.flatMap((pick, index) =>
					pick && !pick.noLabel
						? [
								{
									marker: markers[index],
									...(each.type === 'classify' ? { labels: pick.keys } : { answer: pick.keys![0] }),
									...(pick.note ? { note: pick.note } : {}),
								},
							]
						: [],
				),
			);
			// "No label applies" is its own box.
			const sections = sectionsOf(page.html, form, markers);
			picks.forEach((pick, index) => {
				if (!pick?.noLabel) return;
				const box = sections
					.get(markers[index])!
					.find((control) => control.name.startsWith('none-'));
				box!.checked = true;
			});
			const done = await submitForm(link, form);
			expect(done.status).toBe(200);
			finished = await waitForExecution(session, id, ['success', 'error']);
			expect(finished.error).toBeUndefined();
			stored = (await Promise.all(
				runs.map(async (run) => await sb.control('GET', `/runs/${String(run.run_id)}?key=${KEY}`)),
			)) as typeof stored;
		});

		const isDecide = (slug: string) => (exchange: SandboxExchange) =>
			exchange.method === 'POST' && exchange.path === `/v1/decide/${slug}`;
		const pickedKeys = (pick: Pick) => (pick.noLabel ? [] : pick.keys!);

		it('puts every item on the outputs of its pick, the one left on Not Reviewed', () => {
			const where: Record<string, string[]> = {};
			for (const key of keys)
				for (const item of finished.outputs[checkName(key)]?.[0] ?? [])
					(where[String(item.json[each.marker])] ??= []).push(key);
			for (const item of finished.outputs[NOT_REVIEWED_CHECK]?.[0] ?? [])
				(where[String(item.json[each.marker])] ??= []).push('not reviewed');
			const expected = Object.fromEntries(
				each.items.map((item, index) => {
					const pick = picks[index];
					const outputs = !pick
						? ['not reviewed']
						: pick.noLabel
							? [NO_LABEL_KEY]
							: keys.filter((key) => pick.keys!.includes(key));
					return [String(item[each.marker]), outputs];
				}),
			);
			expect(where).toEqual(expected);
		});

		it('gives each item its own input item through an earlier node, after Review and after Evaluate', () => {
			const checks = [NOT_REVIEWED_CHECK, ...keys.map(checkName), AFTER_EVALUATE];
			const seen: Array<[unknown, unknown]> = [];
			for (const name of checks)
				for (const item of (finished.outputs[name]?.[0] ?? []) as Item[])
					seen.push([item.json.lineage, item.json[each.marker]]);
			expect(seen.length).toBeGreaterThanOrEqual(each.items.length);
			for (const [lineage, own] of seen) expect(lineage).toBe(own);
		});

		it('decides each item once; Evaluate scores the carried runs free', async () => {
			expect(exchanges.filter(isDecide(each.slug)).length - decidesBefore).toBe(each.items.length);
			expect((await sb.usage(KEY)).used - usedBefore).toBe(each.items.length);
			const report = finished.outputs[EVALUATE][0][0].json;
			expect(report.units).toEqual({ charged: 0, fresh: 0, reused: 4 });
		});

		it('sends one feedback per reviewed run in the one encoding; Evaluate sends the same', () => {
			stored.forEach((run, index) => {
				const pick = picks[index];
				const history = run.feedback_history ?? [];
				if (!pick) {
					expect(history).toEqual([]);
					return;
				}
				const text = expectedFeedback(keys, pickedKeys(pick), guesses[index]);
				// Review's, then Evaluate's (Send Expected Answers as Feedback): the same text.
				expect(history.map((each) => each.feedback)).toEqual([text, text]);
				expect(history[0].note).toBe(pick.note);
			});
		});

		it("Evaluate's figures, the doubtful guesses' among them, are the service's answers and the picks'", () => {
			const report = finished.outputs[EVALUATE][0][0].json as Record<string, unknown>;
			const reviewed = picks.flatMap((pick, index) => (pick ? [index] : []));
			const right = reviewed.filter(
				(index) => expectedFeedback(keys, pickedKeys(picks[index]!), guesses[index]) === 'correct',
			);
			const status = each.wiring === 'Uncertain' ? 'uncertain' : 'pending';
			expect(report).toMatchObject({
				total: reviewed.length,
				answered: 0,
				statuses: {
					ok: 0,
					uncertain: status === 'uncertain' ? 4 : 0,
					pending: status === 'pending' ? 4 : 0,
					other: 0,
				},
				doubtful: {
					count: reviewed.length,
					guessed: reviewed.length,
					guess_right: right.length,
					guess_accuracy: Math.round((right.length / reviewed.length) * 1e4) / 1e4,
				},
			});
			// A run on two label outputs reaches Evaluate twice, merged: counted once.
			const copies = reviewed.map((index) => Math.max(1, pickedKeys(picks[index]!).length) - 1);
			expect((report.repeated_runs as unknown[]).length).toBe(copies.reduce((a, b) => a + b, 0));
			expect(String(report.summary)).toContain(
				`the machine's guess was right on ${right.length} of ${reviewed.length}`,
			);
			// The scored items: one per merged item, each with its guess and whether it was right.
			const scored = finished.outputs[EVALUATE][1];
			for (const item of scored) {
				const index = each.items.findIndex(
					(input) => input[each.marker] === item.json[each.marker],
				);
				const guess = guesses[index];
				expect(item.json.guess).toEqual(each.type === 'classify' ? guess : guess[0]);
			}
		});
	});
});
