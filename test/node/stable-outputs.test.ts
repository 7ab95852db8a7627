/**
 * Outputs whose connections never change meaning, in n8n-core. A workflow is saved with a wire on
 * every output of the node (each option, Uncertain, Pending Review, Other and n8n's error output),
 * each to its own downstream node. The decision then changes on the service (an option added
 * first, last and in the middle, one removed, all reordered, the uncertainty policy changed, a
 * classify label added); after each change the Outputs list is refreshed the way n8n's editor
 * does it and real items are routed: every downstream node receives exactly the items of its
 * meaning. (test/e2e/stable-outputs.test.ts does the same in real n8n.)
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runWired, WIRED_NODE_NAME } from '../../harness/n8n-tools';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import {
	LABEL_ADDED,
	POSTS,
	ROUTE_CHANGES,
	TICKETS,
	NEW_OPTIONS,
	TICKET_ROUTING_OUTPUTS,
	canvasOutputs,
	changeLikeEditor,
	expectedArrivals,
	inputIndex,
	meaningOfOutput,
	pairedIndexOf,
	movedWires,
	wireEverything,
	wiresAfterRefresh,
} from '../support/outputs';
import { decideParameters, loadRoutes, refreshRoutes } from './helpers';

let sb: TestSandbox;
const leaks: string[] = [];
const credentials = () => ({ apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl });

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

/** Routes `items` through the wired workflow; asserts each downstream node got exactly its items. */
async function routeAndCheck(
	label: string,
	parameters: INodeParameters,
	wires: Array<string | undefined>,
	items: IDataObject[],
) {
	const result = await runWired({
		parameters,
		onError: 'continueErrorOutput',
		wires,
		items,
		credentials: credentials(),
	});
	leaks.push(result.serialised);
	const nodeOutputs = result.run.data.resultData.runData[WIRED_NODE_NAME][0].data!.main;
	const expected = expectedArrivals(items, nodeOutputs, parameters, wires);
	const received: Record<string, number[]> = {};
	for (const meaning of Object.keys(expected)) {
		// A failed item carries only its error: the node's item at the same place on the wired
		// output says which input it was.
		const output = nodeOutputs[wires.indexOf(meaning)] ?? [];
		received[meaning] = (result.received[meaning] ?? [])
			.map((item, at) => inputIndex(items, item.json, output[at] && pairedIndexOf(output[at])))
			.sort((a, b) => a - b);
	}
	expect({ label, received }).toEqual({ label, received: expected });
	const answers = new Map<number, IDataObject>();
	for (const output of nodeOutputs)
		for (const item of output ?? [])
			answers.set(inputIndex(items, item.json, pairedIndexOf(item)), item.json);
	return { result, received, answers, nodeOutputs };
}

const choiceOf = (answers: Map<number, IDataObject>, index: number) =>
	(answers.get(index)?.decision as IDataObject | undefined)?.choice;

async function publish(slug: string, version: IDataObject) {
	await sb.control('POST', `/decisions/${slug}/versions`, { key: DEMO_KEYS.pro, ...version });
}

describe('a route decision changing on the service, refreshed each time', () => {
	it('keeps every wire on its meaning: options added first, last, in the middle, one removed, reordered, policy changed', async () => {
		let parameters = decideParameters(
			'ticket-routing',
			await loadRoutes('ticket-routing', credentials()),
		);
		let wires = wireEverything(parameters);
		expect(wires).toEqual([
			'key billing',
			'key technical',
			'key sales',
			'key account',
			'uncertain',
			'pending',
			'other',
			'error',
		]);
		const saved = await routeAndCheck('saved', parameters, wires, TICKETS);
		expect(saved.received.error).toEqual([5]);
		expect(saved.received.pending).toContain(4);

		// Before any refresh, a new option's items go to Other.
		await publish('ticket-routing', ROUTE_CHANGES[0].version);
		const drift = await routeAndCheck('legal added, not refreshed', parameters, wires, TICKETS);
		expect(choiceOf(drift.answers, 6)).toBe('legal');
		expect(drift.received.other).toContain(6);
		await sb.control('POST', '/reset');

		for (const change of ROUTE_CHANGES) {
			await publish('ticket-routing', change.version);
			const next = { ...parameters, routes: await refreshRoutes(parameters, credentials()) };
			expect({ change: change.label, moved: movedWires(wires, parameters, next) }).toEqual({
				change: change.label,
				moved: [],
			});
			wires = wiresAfterRefresh(wires, next);
			parameters = next;
			const step = await routeAndCheck(change.label, parameters, wires, TICKETS);
			expect(step.received.error).toEqual([5]);
			if (change.label === 'an option added first') {
				expect(canvasOutputs(parameters)).toEqual([
					...TICKET_ROUTING_OUTPUTS,
					'Error (kept in place)',
					'legal',
					'Error',
				]);
				expect(step.received['key legal']).toEqual([6]);
			}
			if (change.label === 'an option added last')
				expect(step.received['key partners']).toEqual([7]);
			if (change.label === 'an option added in the middle')
				expect(step.received['key privacy']).toEqual([8]);
			if (change.label === 'an option removed') {
				expect(canvasOutputs(parameters)).toContain('sales (no longer on the service)');
				expect(step.received['key sales']).toEqual([]);
			}
			if (change.label === 'the uncertainty policy changed') {
				expect(step.received.uncertain.length).toBeGreaterThanOrEqual(1);
				expect(step.received.pending).toEqual([]);
			}
		}
		expect(Object.keys(NEW_OPTIONS).every((key) => wires.includes(`key ${key}`))).toBe(true);

		// The user deletes the row of the option the service dropped: its output stays in place,
		// empty and marked, so no wire after it moves, through the next refresh too.
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
		const before = canvasOutputs(parameters);
		const deleted = canvasOutputs(removed);
		expect(deleted).toEqual(
			before.map((name) => (name === 'sales (no longer on the service)' ? `✕ ${name}` : name)),
		);
		const after = (await refreshRoutes(removed, credentials())) as unknown as INodeParameters;
		expect(canvasOutputs({ ...removed, routes: after } as INodeParameters)).toEqual(deleted);
	});
});

describe('Single Output and back, switched the way the editor does it', () => {
	it('no wire drawn for an answer ever carries another answer, and Route to Outputs comes back whole', async () => {
		const routed = decideParameters(
			'ticket-routing',
			await loadRoutes('ticket-routing', credentials()),
		);
		const wires = wireEverything(routed);
		const tickets = TICKETS.slice(0, 6);

		// Route to Outputs → Single Output: the list is kept, every wired output stays, empty.
		const single = changeLikeEditor(routed, { outputMode: 'singleOutput' }, wires);
		expect(single.parameters.routes).toEqual(routed.routes);
		expect(single.wires).toEqual(wires);
		expect(canvasOutputs(single.parameters)).toEqual([
			...TICKET_ROUTING_OUTPUTS.map((name) => `✕ ${name}`),
			'Error (kept in place)',
			'All Items',
			'Error',
		]);
		// The error wire stays on its index, an output that still means "error" (issue 45).
		const errorWire = wires.indexOf('error');
		expect(meaningOfOutput(canvasOutputs(single.parameters)[errorWire])).toBe('error');
		// The user wires the new All Items and Error outputs.
		const singleWires = [...single.wires, 'all items', 'single error'];
		const run = await runWired({
			parameters: single.parameters,
			onError: 'continueErrorOutput',
			wires: singleWires,
			items: tickets,
			credentials: credentials(),
		});
		leaks.push(run.serialised);
		// No answer wire gets anything; the error wire drawn before the switch still gets failures.
		for (const wire of wires.filter((each) => each !== 'error'))
			expect({ wire, got: run.received[wire!].length }).toEqual({ wire, got: 0 });
		// A failed item carries only its error: the node's item at the same place says which it was.
		const nodeOutputs = run.run.data.resultData.runData[WIRED_NODE_NAME][0].data!.main;
		const got = (name: string) => {
			const output = nodeOutputs[singleWires.indexOf(name)] ?? [];
			return run.received[name]
				.map((item, at) => inputIndex(tickets, item.json, output[at] && pairedIndexOf(output[at])))
				.sort();
		};
		expect(got('all items')).toEqual([0, 1, 2, 3, 4]);
		expect(got('single error')).toEqual([5]);
		expect(got('error')).toEqual([5]);

		// The service puts a new option first meanwhile; back to Route to Outputs: the same outputs,
		// names and wires (the single-only wires past them are dropped by n8n).
		await publish('ticket-routing', ROUTE_CHANGES[0].version);
		const back = changeLikeEditor(single.parameters, { outputMode: 'routeToOutputs' }, singleWires);
		expect(canvasOutputs(back.parameters)).toEqual(canvasOutputs(routed));
		expect(back.wires).toEqual(wires);
		const step = await routeAndCheck(
			'back to Route to Outputs',
			back.parameters,
			back.wires,
			tickets,
		);
		expect(step.received['key billing']).toEqual([0]);
		expect(step.received.error).toEqual([5]);
	});

	it('a node switched to Single Output before any list was loaded has one output', () => {
		const fresh = decideParameters('ticket-routing', undefined);
		expect(canvasOutputs(fresh)).toEqual(['main', 'Error']);
	});
});

describe('a classify decision gaining a label, refreshed', () => {
	it('keeps every wire, and an item sent to several labels is a separate copy on each', async () => {
		let parameters = decideParameters(
			'content-labels',
			await loadRoutes('content-labels', credentials()),
		);
		let wires = wireEverything(parameters);
		await routeAndCheck('saved', parameters, wires, POSTS);

		await publish('content-labels', LABEL_ADDED);
		const next = { ...parameters, routes: await refreshRoutes(parameters, credentials()) };
		expect(movedWires(wires, parameters, next)).toEqual([]);
		expect(canvasOutputs(next).slice(-3)).toEqual(['Error (kept in place)', 'event', 'Error']);
		wires = wiresAfterRefresh(wires, next);
		parameters = next;
		const step = await routeAndCheck('a label added', parameters, wires, POSTS);
		expect(step.received['key event']).toContain(4);

		// The spam post is on several label outputs of the node: each holds its own copy.
		const copies = step.nodeOutputs
			.flatMap((output) => output ?? [])
			.filter((item) => (item.pairedItem as { item: number }).item === 0);
		expect(copies.length).toBeGreaterThanOrEqual(2);
		(copies[0].json.decision as IDataObject).note = 'edited in one branch';
		copies[0].json.text = 'edited';
		for (const copy of copies.slice(1)) {
			expect((copy.json.decision as IDataObject).note).toBeUndefined();
			expect(copy.json.text).toBe(POSTS[0].text);
		}
	});
});
