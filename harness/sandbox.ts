/** Starts a real sandbox server on 127.0.0.1 (random port) and drives its control surface. */
import { request } from 'undici';
import { createUndiciClient } from './undici';
import type { DecisionClientOptions } from '../src/client';
import {
	DEMO_KEYS,
	startSandbox,
	type RunningSandbox,
	type SandboxOptions,
} from '../sandbox/server';

export { DEMO_KEYS };

export interface TestSandbox {
	sandbox: RunningSandbox;
	baseUrl: string;
	/** Calls the control surface; throws on a non-2xx answer. */
	control<T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
	usage(key: string): Promise<{
		plan: string;
		used: number;
		quota: number;
		period: string;
		rate: { limit: number; remaining: number; reset_ms: number };
	}>;
	/** A client of the sandbox for `key`; closed with the sandbox. */
	client(
		key: string,
		options?: Partial<Omit<DecisionClientOptions, 'transport' | 'sleep' | 'baseUrl'>>,
	): ReturnType<typeof createUndiciClient>['client'];
	close(): Promise<void>;
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
	const sandbox = await startSandbox({ port: 0, ...options });
	const closers: Array<() => Promise<void>> = [];
	let clients = 0;
	const control = async <T>(
		method: 'GET' | 'POST' | 'DELETE',
		path: string,
		body?: unknown,
	): Promise<T> => {
		const response = await request(`${sandbox.origin}/_control${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.body.text();
		if (response.statusCode >= 300)
			throw new Error(`control ${method} ${path} answered ${response.statusCode}: ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	};
	return {
		sandbox,
		baseUrl: sandbox.baseUrl,
		control,
		usage: (key) => control('GET', `/usage?key=${encodeURIComponent(key)}`),
		client(key, clientOptions = {}) {
			// Each client gets its own rate gate unless the test shares one on purpose.
			clients += 1;
			const { client, close } = createUndiciClient({
				baseUrl: sandbox.baseUrl,
				apiKey: key,
				rateGateKey: `${sandbox.baseUrl}|${key}|${clients}`,
				...clientOptions,
			});
			closers.push(close);
			return client;
		},
		async close() {
			await Promise.all(closers.map((close) => close()));
			await sandbox.close();
		},
	};
}

/** Sends one raw request to the sandbox's API: for status codes and headers a client hides. */
export async function rawRequest(
	baseUrl: string,
	method: 'GET' | 'POST',
	path: string,
	options: {
		key?: string;
		body?: string;
		headers?: Record<string, string>;
		/** Aborts the request after this long (a client that gives up). */
		timeoutMs?: number;
	} = {},
): Promise<{ status: number; headers: Record<string, string>; json: unknown; text: string }> {
	const response = await request(`${baseUrl}${path}`, {
		method,
		headers: {
			...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
			...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
			...options.headers,
		},
		body: options.body,
		...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
	});
	const text = await response.body.text();
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(response.headers))
		if (typeof value === 'string') headers[name] = value;
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.statusCode, headers, json, text };
}
