/**
 * The shipped example workflows open in n8n without "Outputs are outdated. Refresh to see the
 * changes": each Decide node's saved Outputs list is exactly the list a fresh pick of its decision
 * loads (the decision as the sandbox serves it), so the editor's list, the canvas and a refresh agree.
 */
import { exampleWorkflows } from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { freshOutputsList, forReview } from '../../nodes/DecisionService/outputs/list';
import { auditFraction } from '../../src/answer/audit';

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});

interface DecideParameters {
	resource?: string;
	operation?: string;
	decision?: { value?: string };
	outputMode?: string;
	routes?: { schema?: unknown[] };
	options?: { auditShare?: unknown };
}

const decideNodes = exampleWorkflows().flatMap((workflow) =>
	(workflow.nodes as Array<{ name: string; type: string; parameters: DecideParameters }>)
		.filter(
			(node) =>
				node.type.endsWith('.decisionService') &&
				(node.parameters.resource ?? 'decision') === 'decision' &&
				(node.parameters.operation ?? 'decide') === 'decide' &&
				(node.parameters.outputMode ?? 'routeToOutputs') === 'routeToOutputs',
		)
		.map((node) => [`${workflow.name} › ${node.name}`, node.parameters] as const),
);

it('there are examples that route to outputs', () => {
	expect(decideNodes.length).toBeGreaterThanOrEqual(3);
});

it.each(decideNodes)(
	'%s: the saved Outputs list is what picking the decision loads',
	async (_name, parameters) => {
		const slug = parameters.decision?.value;
		expect(typeof slug).toBe('string');
		const decision = await sb.client(DEMO_KEYS.pro).getDecision(slug as string);
		// With Audit Share set, a fresh pick's list has Audit after Other (examples/ticket-routing-audit.json).
		const audit = auditFraction(parameters.options?.auditShare) > 0;
		expect(parameters.routes?.schema).toEqual(freshOutputsList(decision, { audit }));
	},
);

const reviewNodes = exampleWorkflows().flatMap((workflow) =>
	(workflow.nodes as Array<{ name: string; type: string; parameters: DecideParameters }>)
		.filter(
			(node) => node.type.endsWith('.decisionService') && node.parameters.operation === 'review',
		)
		.map((node) => [`${workflow.name} › ${node.name}`, node.parameters] as const),
);

it('there is an example with a review', () => {
	expect(reviewNodes.length).toBeGreaterThanOrEqual(1);
});

it.each(reviewNodes)(
	'%s: the saved Outputs list is what picking the decision loads on Review',
	async (_name, parameters) => {
		const decision = await sb.client(DEMO_KEYS.pro).getDecision(parameters.decision!.value!);
		expect(parameters.routes?.schema).toEqual(forReview(freshOutputsList(decision)));
	},
);
