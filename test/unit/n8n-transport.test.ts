/**
 * The client's transport on n8n's HTTP helper (nodes/DecisionService/transport.ts): what it asks
 * n8n's helper for, what it makes of the answer and of n8n's errors, and the credential checks of
 * createDecisionClient. n8n's HTTP stack itself runs for real in the node and e2e tests; here a
 * context records the options handed to `helpers.httpRequestWithAuthentication` and answers as told.
 * (test/unit/transport.test.ts covers flattenHeaders and classifyTransportCode of src/client.)
 */
import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type JsonObject,
} from 'n8n-workflow';
import { NetworkError, NotFoundError, RedirectError, TimeoutError } from '../../src/client';
import { CREDENTIAL_TYPE, createDecisionClient } from '../../nodes/DecisionService/transport';

// The client's backoff between retries uses n8n's sleep: instant here, so retries cost no time.
jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	sleep: jest.fn(async () => undefined),
}));

const KEY = 'sk-live-7f3c9a1b2e';
const BASE_URL = 'https://api.example.com/v1';

interface Call {
	self: unknown;
	type: string;
	options: IHttpRequestOptions;
	extra: { credentialsDecrypted?: Record<string, unknown> } | undefined;
}

const node: INode = {
	id: 'node-1',
	name: 'Decision Service',
	type: 'n8n-nodes-decision-service.decisionService',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
	credentials: { [CREDENTIAL_TYPE]: { id: 'cred-7', name: 'Production' } },
};

/** A context whose helper records each call and answers with `answer` (a value, or a throw). */
function fakeN8n(
	answer: (options: IHttpRequestOptions, call: number) => unknown,
	credentials: Record<string, string> = { apiKey: KEY, baseUrl: BASE_URL },
	theNode: INode = node,
) {
	const calls: Call[] = [];
	const n8n = {
		getNode: () => theNode,
		getCredentials: async (type: string) => {
			if (type !== CREDENTIAL_TYPE) throw new Error(`unexpected credential type ${type}`);
			return credentials;
		},
		helpers: {
			async httpRequestWithAuthentication(
				this: unknown,
				type: string,
				options: IHttpRequestOptions,
				extra?: Call['extra'],
			) {
				calls.push({ self: this, type, options, extra });
				return await answer(options, calls.length);
			},
		},
	} as unknown as IExecuteFunctions;
	return { n8n, calls };
}

const json = (statusCode: number, body: unknown, headers: Record<string, unknown> = {}) => ({
	statusCode,
	headers: { 'content-type': 'application/json', ...headers },
	body: JSON.stringify(body),
});

/** What an axios error looks like inside n8n: the code, and the request with its credential. */
function axiosError(code: string, message = `connect ${code} 10.0.0.1:443`) {
	return Object.assign(new Error(`${message} (Authorization: Bearer ${KEY})`), {
		code,
		isAxiosError: true,
		config: { headers: { Authorization: `Bearer ${KEY}` }, url: BASE_URL },
	});
}

/** What n8n-core's httpRequestWithAuthentication throws on a refused connection. */
const refusedByN8n = () =>
	new NodeApiError(node, axiosError('ECONNREFUSED') as unknown as JsonObject);

/** Everything a thrown error shows: its message, description and own fields, serialised. */
function shown(error: unknown): string {
	const record = error as Record<string, unknown>;
	return JSON.stringify({ ...record, message: record.message, description: record.description });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise;
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected the call to fail');
}

describe('the request handed to n8n', () => {
	it('a GET: the credential type, answers of any status as data, no redirects, the timeout and signal', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }));
		const client = await createDecisionClient(n8n, { timeoutMs: 12_345 });
		const signal = new AbortController().signal;
		await expect(client.listDecisions(signal)).resolves.toEqual([]);
		expect(calls).toHaveLength(1);
		const [call] = calls;
		expect(call.self).toBe(n8n);
		expect(call.type).toBe('decisionServiceApi');
		expect(call.options).toEqual({
			method: 'GET',
			url: 'https://api.example.com/v1/decisions',
			headers: { accept: 'application/json' },
			body: undefined,
			json: false,
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 12_345,
			abortSignal: signal,
			disableFollowRedirect: true,
		});
	});

	it('hands n8n the credential already loaded, with the id of the node’s credential', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }));
		await (await createDecisionClient(n8n)).listDecisions();
		expect(calls[0].extra).toEqual({
			credentialsDecrypted: {
				id: 'cred-7',
				name: CREDENTIAL_TYPE,
				type: CREDENTIAL_TYPE,
				data: { apiKey: KEY, baseUrl: BASE_URL },
			},
		});
	});

	it('without a credential id on the node, the type stands in for it', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }), undefined, {
			...node,
			credentials: undefined,
		});
		await (await createDecisionClient(n8n)).listDecisions();
		expect(calls[0].extra?.credentialsDecrypted?.id).toBe(CREDENTIAL_TYPE);
	});

	it('a POST: the body as JSON text with its content type, not for n8n to serialise', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { run_id: 'run_1', feedback: 'good' }));
		await (await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' });
		expect(calls[0].options).toMatchObject({
			method: 'POST',
			url: 'https://api.example.com/v1/runs/run_1/feedback',
			headers: { accept: 'application/json', 'content-type': 'application/json' },
			body: '{"feedback":"good"}',
			json: false,
		});
	});

	it('the base URL as the credential holds it, trailing slash and spaces removed', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }), {
			apiKey: KEY,
			baseUrl: '  https://api.example.com/v1/ ',
		});
		await (await createDecisionClient(n8n)).listDecisions();
		expect(calls[0].options.url).toBe('https://api.example.com/v1/decisions');
	});
});

describe('the answer n8n gives back', () => {
	it('a body n8n already parsed is read as JSON', async () => {
		const { n8n } = fakeN8n(() => ({
			statusCode: 200,
			headers: {},
			body: { run_id: 'run_1', feedback: 'good' },
		}));
		await expect(
			(await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' }),
		).resolves.toEqual({ run_id: 'run_1', feedback: 'good' });
	});

	it('an error status is an answer, read with its body', async () => {
		const { n8n, calls } = fakeN8n(() =>
			json(404, { error: { code: 'not_found', message: 'No decision "nope".' } }),
		);
		const error = await failure((await createDecisionClient(n8n)).getDecision('nope'));
		expect(error).toBeInstanceOf(NotFoundError);
		expect(error.message).toContain('No decision "nope".');
		expect(calls).toHaveLength(1);
	});

	it('a 3xx is given back, not followed; its headers reach the client flattened (Location as an array, capitalised)', async () => {
		const { n8n, calls } = fakeN8n(() => ({
			statusCode: 302,
			// Header names as n8n may give them: capitals, and a value repeated as an array.
			headers: { Location: ['https://elsewhere.example/v1/decisions'] },
			body: '',
		}));
		const error = await failure((await createDecisionClient(n8n)).listDecisions());
		expect(error).toBeInstanceOf(RedirectError);
		expect((error as RedirectError).location).toBe('https://elsewhere.example');
		expect(calls).toHaveLength(1);
	});
});

describe("n8n's errors, as the client's transport failures", () => {
	it('ECONNREFUSED in NodeApiError’s cause: never sent, so even a once-only call is sent again', async () => {
		const { n8n, calls } = fakeN8n((_options, call) => {
			if (call === 1) throw refusedByN8n();
			return json(200, { run_id: 'run_1', feedback: 'good' });
		});
		const client = await createDecisionClient(n8n);
		await expect(client.sendFeedback('run_1', { feedback: 'good' })).resolves.toEqual({
			run_id: 'run_1',
			feedback: 'good',
		});
		expect(calls).toHaveLength(2);
	});

	it('ECONNREFUSED every time: a NetworkError saying the request was not sent', async () => {
		const { n8n } = fakeN8n(() => {
			throw refusedByN8n();
		});
		const error = await failure(
			(await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' }),
		);
		expect(error).toBeInstanceOf(NetworkError);
		expect((error as NetworkError).code).toBe('econnrefused');
		expect((error as NetworkError).mayHaveReachedServer).toBe(false);
	});

	it('ECONNRESET nested two causes deep: sent, so a once-only call is not repeated', async () => {
		const { n8n, calls } = fakeN8n(() => {
			throw Object.assign(new Error('request failed'), {
				cause: Object.assign(new Error('socket'), {
					cause: axiosError('ECONNRESET', 'socket hang up'),
				}),
			});
		});
		const error = await failure(
			(await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' }),
		);
		expect(error).toBeInstanceOf(NetworkError);
		expect((error as NetworkError).code).toBe('econnreset');
		expect((error as NetworkError).mayHaveReachedServer).toBe(true);
		expect(calls).toHaveLength(1);
	});

	it('ETIMEDOUT under errorResponse: a TimeoutError', async () => {
		const { n8n, calls } = fakeN8n(() => {
			throw Object.assign(new Error('n8n'), { errorResponse: axiosError('ETIMEDOUT') });
		});
		const error = await failure(
			(await createDecisionClient(n8n, { timeoutMs: 11_000 })).sendFeedback('run_1', {
				feedback: 'good',
			}),
		);
		expect(error).toBeInstanceOf(TimeoutError);
		expect((error as TimeoutError).timeoutMs).toBe(11_000);
		expect(calls).toHaveLength(1);
	});

	it('a TLS handshake that failed (a code with digits): never sent, so a decide is sent again', async () => {
		const { n8n, calls } = fakeN8n((_options, call) => {
			if (call === 1) {
				throw Object.assign(new Error('request failed'), {
					cause: axiosError('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'tlsv1 alert'),
				});
			}
			return json(200, { run_id: 'run_1', feedback: 'good' });
		});
		const client = await createDecisionClient(n8n);
		await expect(client.sendFeedback('run_1', { feedback: 'good' })).resolves.toMatchObject({
			run_id: 'run_1',
		});
		expect(calls).toHaveLength(2);
	});

	it('a code that is not a system code (lower case, a number) is not taken for one', async () => {
		const { n8n } = fakeN8n(() => {
			throw Object.assign(new Error(`bad ${KEY}`), {
				code: 'econnrefused',
				cause: { code: 401 },
			});
		});
		const error = await failure(
			(await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' }),
		);
		expect(error).toBeInstanceOf(NetworkError);
		expect((error as NetworkError).code).toBe('network_error');
		expect((error as NetworkError).mayHaveReachedServer).toBe(true);
	});

	it('neither the key nor the Authorization header is in any failure’s message', async () => {
		const failures = [
			refusedByN8n(),
			axiosError('ECONNRESET'),
			Object.assign(new Error(`timeout Authorization: Bearer ${KEY}`), {
				cause: axiosError('ETIMEDOUT'),
			}),
			new Error(`no code at all, Bearer ${KEY}`),
			Object.assign(new Error('a code quoting the header'), { code: `Bearer ${KEY}` }),
		];
		for (const thrown of failures) {
			const { n8n } = fakeN8n(() => {
				throw thrown;
			});
			const error = await failure(
				(await createDecisionClient(n8n)).sendFeedback('run_1', { feedback: 'good' }),
			);
			expect(shown(error)).not.toContain(KEY);
			expect(shown(error)).not.toMatch(/authorization|bearer/i);
		}
	});

	it('a key pasted with spaces around it is still kept out of an answer’s message', async () => {
		const { n8n } = fakeN8n(
			() => json(404, { error: { code: 'not_found', message: `No decision for key ${KEY}.` } }),
			{ apiKey: `  ${KEY}\n`, baseUrl: BASE_URL },
		);
		const error = await failure((await createDecisionClient(n8n)).getDecision('tickets'));
		expect(error).toBeInstanceOf(NotFoundError);
		expect(error.message).toContain('No decision for key');
		expect(shown(error)).not.toContain(KEY);
	});
});

describe("the credential's base URL", () => {
	it.each([
		['http to a remote host', 'http://api.example.com/v1', /must use https:\/\//],
		['without /v1', 'https://api.example.com', /must end with the API version \/v1/],
		['not a URL', 'api.example.com/v1', /is not a URL/],
	])('%s: refused before any request, saying where to fix it', async (_name, baseUrl, problem) => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }), { apiKey: KEY, baseUrl });
		const error = await failure(createDecisionClient(n8n));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(problem);
		expect((error as NodeOperationError).description).toMatch(/credential.*Base URL/);
		expect(calls).toHaveLength(0);
	});

	it('http on loopback is accepted', async () => {
		const { n8n, calls } = fakeN8n(() => json(200, { decisions: [] }), {
			apiKey: KEY,
			baseUrl: 'http://127.0.0.1:8787/v1',
		});
		await (await createDecisionClient(n8n)).listDecisions();
		expect(calls[0].options.url).toBe('http://127.0.0.1:8787/v1/decisions');
	});

	it('a base URL carrying the key is refused without repeating it', async () => {
		for (const baseUrl of [
			`https://api.example.com/v1?api_key=${KEY}`,
			`https://user:${KEY}@api.example.com/v1`,
			`http://api.example.com/v1/${KEY}`,
		]) {
			const { n8n } = fakeN8n(() => json(200, { decisions: [] }), { apiKey: KEY, baseUrl });
			const error = await failure(createDecisionClient(n8n));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(shown(error)).not.toContain(KEY);
		}
	});
});
