/**
 * What stands in for a Slack or Google Chat incoming webhook in the Review tests: a real HTTP
 * server on 127.0.0.1 that keeps every JSON body posted to it and answers with a status the test
 * chooses (200 unless told otherwise), as such a webhook does. Review's Send Link To posts the
 * review link there before the execution waits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WorkflowJson } from '../../harness/n8n-executions';

export interface LinkReceiver {
	/** http://127.0.0.1:PORT/hooks/review */
	url: string;
	/** Every body received, parsed, oldest first. */
	received: Array<Record<string, unknown>>;
	/** The status the next posts are answered with. */
	answerWith(status: number): void;
	close(): Promise<void>;
}

export async function startLinkReceiver(): Promise<LinkReceiver> {
	const received: Array<Record<string, unknown>> = [];
	let status = 200;
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			try {
				received.push(
					JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
				);
			} catch {
				received.push({ unparsed: Buffer.concat(chunks).toString('utf8') });
			}
			response.writeHead(status, { 'content-type': 'text/plain' });
			response.end(status < 300 ? 'ok' : 'no');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hooks/review`,
		received,
		answerWith: (next) => {
			status = next;
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The workflow without one node and the wires into and out of it. */
export function withoutNode(workflow: WorkflowJson, name: string): WorkflowJson {
	const connections = Object.fromEntries(
		Object.entries(workflow.connections)
			.filter(([source]) => source !== name)
			.map(([source, { main }]) => [
				source,
				{ main: main.map((targets) => (targets ?? []).filter((target) => target.node !== name)) },
			]),
	);
	return {
		...workflow,
		nodes: workflow.nodes.filter((node) => node.name !== name),
		connections,
	};
}
