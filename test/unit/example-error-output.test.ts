/**
 * Issue 44, point 4: under n8n's default On Error (Stop Workflow) one bad item stops Decide and no
 * item goes on. Every example whose Decide routes sets Continue (using error output) and wires
 * that output (the one n8n adds after the node's own), so a ticket without a subject goes there
 * and the others to their teams.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { outputNames } from '../../harness/n8n-expressions';

const EXAMPLES = join(__dirname, '..', '..', 'examples');

interface ExampleNode {
	name: string;
	type: string;
	onError?: string;
	parameters: Record<string, unknown>;
}

const deciders = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.flatMap((file) => {
		const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as {
			nodes: ExampleNode[];
			connections: Record<string, { main: Array<Array<{ node: string }>> }>;
		};
		return workflow.nodes
			.filter(
				(node) =>
					node.type.endsWith('.decisionService') &&
					(node.parameters.operation ?? 'decide') === 'decide' &&
					node.parameters.outputMode === 'routeToOutputs',
			)
			.map((node) => [`${file} › ${node.name}`, node, workflow.connections[node.name]] as const);
	});

describe('examples: a Decide that routes lets one bad item fail alone', () => {
	it('finds the routing examples', () => {
		expect(deciders.length).toBeGreaterThanOrEqual(5);
	});

	it.each(deciders)(
		'%s: Continue (using error output), the error output wired',
		(_, node, wires) => {
			expect(node.onError).toBe('continueErrorOutput');
			const errorOutput = outputNames(node.parameters as never).length;
			expect(wires?.main[errorOutput]?.length ?? 0).toBeGreaterThan(0);
		},
	);
});
