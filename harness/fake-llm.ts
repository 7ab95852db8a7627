/**
 * A scripted stand-in for an OpenAI-compatible chat model on 127.0.0.1, so that n8n's real AI
 * Agent can run without network: it records every request (the tools n8n offers, with their
 * descriptions, and the tool results n8n sends back), answers the first turn with the scripted
 * tool calls, and the turn that carries tool results with a final text quoting them.
 * Non-streaming `POST /v1/chat/completions` only.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface ChatRequest {
	model: string;
	messages: Array<{ role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown }>;
	tools?: Array<{
		type: string;
		function: { name: string; description?: string; parameters?: unknown };
	}>;
}

export interface FakeLlm {
	/** The base URL to give n8n's OpenAI credential (ends with /v1). */
	baseUrl: string;
	requests: ChatRequest[];
	/** Each call the model makes on its first turn: arguments for the first tool n8n offers. */
	script(calls: Array<Record<string, unknown>>): void;
	close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeLlm(): Promise<FakeLlm> {
	const requests: ChatRequest[] = [];
	let calls: Array<Record<string, unknown>> = [];
	let sequence = 0;
	const server: Server = createServer(async (request, response) => {
		const reply = (status: number, body: unknown) => {
			response.writeHead(status, { 'content-type': 'application/json' });
			response.end(JSON.stringify(body));
		};
		if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
			return reply(404, { error: { message: `not served: ${request.method} ${request.url}` } });
		}
		const chat = JSON.parse(await bodyOf(request)) as ChatRequest;
		requests.push(chat);
		const id = `chatcmpl-${++sequence}`;
		const base = { id, object: 'chat.completion', created: 1_700_000_000, model: chat.model };
		const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
		const results = chat.messages.filter((message) => message.role === 'tool');
		if (results.length === 0) {
			const tool = chat.tools?.[0]?.function.name ?? 'missing_tool';
			return reply(200, {
				...base,
				choices: [
					{
						index: 0,
						finish_reason: 'tool_calls',
						message: {
							role: 'assistant',
							content: null,
							tool_calls: calls.map((args, index) => ({
								id: `call_${sequence}_${index}`,
								type: 'function',
								function: { name: tool, arguments: JSON.stringify(args) },
							})),
						},
					},
				],
				usage,
			});
		}
		const quoted = results.map((message) => String(message.content)).join('\n');
		return reply(200, {
			...base,
			choices: [
				{
					index: 0,
					finish_reason: 'stop',
					message: { role: 'assistant', content: `The tool answered:\n${quoted}` },
				},
			],
			usage,
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		script: (next) => {
			calls = next;
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
