/**
 * The client's transport outside n8n (tests, scripts, benchmarks): undici with a keep-alive
 * pool. Not shipped in the n8n package, which uses n8n's own HTTP helpers instead.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, errors as undiciErrors } from 'undici';
import {
	DecisionClient,
	TransportError,
	classifyTransportCode,
	flattenHeaders,
	type DecisionClientOptions,
	type Sleep,
	type Transport,
} from '../src/client';

export interface UndiciTransportOptions {
	apiKey: string;
	/** Sockets kept per origin. */
	connections?: number;
}

function errorCode(error: unknown): string | undefined {
	if (typeof error !== 'object' || error === null) return undefined;
	const own = (error as { code?: unknown }).code;
	if (typeof own === 'string') return own;
	const cause = (error as { cause?: unknown }).cause;
	return cause === undefined ? undefined : errorCode(cause);
}

export function createUndiciTransport(
	options: UndiciTransportOptions,
): Transport & { close(): Promise<void> } {
	const dispatcher = new Agent({ connections: options.connections ?? 32, keepAliveTimeout: 4_000 });
	const transport: Transport = async (req) => {
		const signals = [AbortSignal.timeout(req.timeoutMs), ...(req.signal ? [req.signal] : [])];
		const signal = AbortSignal.any(signals);
		try {
			const response = await request(req.url, {
				method: req.method,
				headers: { ...req.headers, authorization: `Bearer ${options.apiKey}` },
				body: req.body,
				signal,
				dispatcher,
				headersTimeout: req.timeoutMs,
				bodyTimeout: req.timeoutMs,
			});
			const body = await response.body.text();
			return { status: response.statusCode, headers: flattenHeaders(response.headers), body };
		} catch (error) {
			if (req.signal?.aborted)
				throw new TransportError('aborted', 'The request was cancelled.', 'ABORT_ERR');
			if (
				signal.aborted ||
				error instanceof undiciErrors.HeadersTimeoutError ||
				error instanceof undiciErrors.BodyTimeoutError
			) {
				throw new TransportError('timeout', `No answer within ${req.timeoutMs} ms.`, 'ETIMEDOUT');
			}
			const code = errorCode(error);
			// The message of a low-level error never holds the Authorization header; keep only the code.
			throw new TransportError(
				classifyTransportCode(code),
				`Connection failed (${code ?? 'unknown error'}).`,
				code,
			);
		}
	};
	return Object.assign(transport, { close: () => dispatcher.close() });
}

export const nodeSleep: Sleep = async (ms, signal) => {
	await delay(ms, undefined, signal ? { signal } : undefined);
};

/** A ready client on undici, for scripts and tests. */
export function createUndiciClient(
	options: Omit<DecisionClientOptions, 'transport' | 'sleep'> & {
		apiKey: string;
		connections?: number;
	},
): { client: DecisionClient; close(): Promise<void> } {
	const { apiKey, connections, ...clientOptions } = options;
	const transport = createUndiciTransport({ apiKey, connections });
	const client = new DecisionClient({
		rateGateKey: `${options.baseUrl}|${apiKey}`,
		secrets: [apiKey],
		...clientOptions,
		transport,
		sleep: nodeSleep,
	});
	return { client, close: () => transport.close() };
}
