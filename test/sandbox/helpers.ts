/** Raw-HTTP helpers for the sandbox's own tests: each test file starts its own sandbox. */
import { request } from 'undici';
import {
	DEMO_KEYS,
	startSandbox,
	type RunningSandbox,
	type SandboxOptions,
} from '../../sandbox/server';

export { DEMO_KEYS };

export interface Answer {
	status: number;
	headers: Record<string, string>;
	text: string;
	/** Parsed body; undefined when the body is not JSON. Tests narrow it with the contract's schemas or casts. */
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience: bodies are checked field by field
}

export interface CallOptions {
	key?: string;
	/** A value sent as JSON. */
	body?: unknown;
	/** A body sent as is (invalid JSON, huge bodies). */
	raw?: string;
	headers?: Record<string, string>;
}

export class Harness {
	constructor(private started?: RunningSandbox) {}

	get sandbox(): RunningSandbox {
		if (!this.started)
			throw new Error('the sandbox is not started yet (useHarness starts it in beforeAll)');
		return this.started;
	}

	set sandbox(sandbox: RunningSandbox) {
		this.started = sandbox;
	}

	get baseUrl(): string {
		return this.sandbox.baseUrl;
	}

	async call(
		method: 'GET' | 'POST' | 'DELETE',
		url: string,
		options: CallOptions = {},
	): Promise<Answer> {
		const body =
			options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
		const response = await request(url, {
			method,
			headers: {
				...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
				...options.headers,
			},
			body,
		});
		const text = await response.body.text();
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(response.headers)) {
			if (typeof value === 'string') headers[name] = value;
		}
		let json: unknown;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		return { status: response.statusCode, headers, text, json };
	}

	/** A call under /v1. */
	api(method: 'GET' | 'POST', path: string, options: CallOptions = {}): Promise<Answer> {
		return this.call(method, `${this.sandbox.baseUrl}${path}`, options);
	}

	decide(key: string, slug: string, body: unknown): Promise<Answer> {
		return this.api('POST', `/decide/${slug}`, { key, body });
	}

	/** A call of the control surface; throws unless 2xx. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see Answer.json
	async control(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
		const answer = await this.call(method, `${this.sandbox.origin}/_control${path}`, { body });
		if (answer.status >= 300)
			throw new Error(`control ${method} ${path}: ${answer.status} ${answer.text}`);
		return answer.json;
	}

	usage(key: string): Promise<{
		plan: string;
		used: number;
		quota: number | null;
		period: string;
		rate: { limit: number | null; remaining: number | null; reset_ms: number | null };
	}> {
		return this.control('GET', `/usage?key=${encodeURIComponent(key)}`);
	}

	reset(): Promise<unknown> {
		return this.control('POST', '/reset');
	}

	close(): Promise<void> {
		return this.sandbox.close();
	}
}

/** One sandbox for the enclosing file or describe block: started before its tests, reset before each, closed after. */
export function useHarness(options: SandboxOptions = {}): Harness {
	const harness = new Harness();
	beforeAll(async () => {
		harness.sandbox = await startSandbox({ port: 0, ...options });
	});
	afterAll(() => harness.close());
	beforeEach(() => harness.reset());
	return harness;
}

/** A route definition for create requests, with `n` options. */
export function routeDefinition(name: string, n = 2): Record<string, unknown> {
	return {
		name,
		type: 'route',
		instructions: 'Which option applies?',
		options: Array.from({ length: n }, (_, index) => `option ${index + 1}`),
	};
}
