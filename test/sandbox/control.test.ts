/**
 * Hardening of the control surface: it answers only requests addressed to a loopback name, from
 * no origin or a loopback one, with JSON bodies; and its clock moves are bounded.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { errorEnvelopeSchema } from '../../src/contract';
import { hostNameOf, MAX_CLOCK_STEP_MS } from '../../sandbox/control';
import { DAY_MS } from '../../sandbox/plans';
import { DEMO_KEYS, useHarness, type Answer } from './helpers';

const h = useHarness();

/**
 * One request with exactly these headers (node:http adds none but Content-Length for a body):
 * the Host and Content-Type a browser page or a script elsewhere would send.
 */
function raw(
	method: 'GET' | 'POST',
	path: string,
	headers: OutgoingHttpHeaders,
	body?: string,
): Promise<Answer> {
	const { hostname, port } = new URL(h.sandbox.origin);
	return new Promise((resolve, reject) => {
		const outgoing = httpRequest(
			{ host: hostname, port, method, path, headers, setHost: false },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => {
					const text = Buffer.concat(chunks).toString('utf8');
					let json: unknown;
					try {
						json = JSON.parse(text);
					} catch {
						json = undefined;
					}
					const flat: Record<string, string> = {};
					for (const [name, value] of Object.entries(response.headers))
						if (typeof value === 'string') flat[name] = value;
					resolve({ status: response.statusCode ?? 0, headers: flat, text, json });
				});
			},
		);
		outgoing.on('error', reject);
		outgoing.end(body);
	});
}

const loopbackHost = () => `127.0.0.1:${new URL(h.sandbox.origin).port}`;
const setUsage = JSON.stringify({ key: DEMO_KEYS.pro, used: 42 });

function expectRefused(answer: Answer, status: number, code: string): void {
	expect(answer.status).toBe(status);
	expect(errorEnvelopeSchema.parse(answer.json).error.code).toBe(code);
}

describe('Host and Origin', () => {
	it.each([
		['a public name', 'evil.example'],
		['a public name with the sandbox port', 'evil.example:8787'],
		['a name that starts like loopback', '127.0.0.1.evil.example'],
		['a name that starts like localhost', 'localhost.evil.example:80'],
		['a LAN address', '192.168.1.20:8787'],
		['another loopback-looking literal', '0.0.0.0'],
		['garbage', 'local host'],
	])('refuses a Host that is %s (403), and changes nothing', async (_case, host) => {
		const answer = await raw(
			'POST',
			'/_control/usage',
			{ host, 'content-type': 'application/json' },
			setUsage,
		);
		expectRefused(answer, 403, 'forbidden');
		expect(answer.json.error.message).toMatch(/loopback/);
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it('refuses a request without Host (Node itself answers 400 to HTTP/1.1 without Host)', async () => {
		const answer = await raw(
			'POST',
			'/_control/usage',
			{ 'content-type': 'application/json' },
			setUsage,
		);
		expect([400, 403]).toContain(answer.status);
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it.each([['127.0.0.1'], ['localhost:1234'], ['LOCALHOST'], ['[::1]:9'], ['[::1]']])(
		'answers Host %s, whatever the port',
		async (host) => {
			const answer = await raw(
				'POST',
				'/_control/usage',
				{ host, 'content-type': 'application/json' },
				setUsage,
			);
			expect(answer.status).toBe(200);
			expect(answer.json.used).toBe(42);
		},
	);

	it.each([
		['a public site', 'http://evil.example'],
		['a public site on a loopback-looking name', 'https://127.0.0.1.evil.example'],
		['an opaque origin (sandboxed frame, file:)', 'null'],
		['a non-http scheme', 'file:///tmp/page.html'],
	])('refuses an Origin that is %s (403), and changes nothing', async (_case, origin) => {
		const answer = await raw(
			'POST',
			'/_control/usage',
			{ host: loopbackHost(), origin, 'content-type': 'application/json' },
			setUsage,
		);
		expectRefused(answer, 403, 'forbidden');
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it.each([['http://localhost:5678'], ['http://127.0.0.1'], ['https://[::1]:3000']])(
		'answers Origin %s',
		async (origin) => {
			const answer = await raw('GET', '/_control/clock', { host: loopbackHost(), origin });
			expect(answer.status).toBe(200);
		},
	);

	it('leaves the API alone: /v1 answers whatever the Host', async () => {
		const answer = await raw('GET', '/v1/decisions', {
			host: 'api.example.com',
			authorization: `Bearer ${DEMO_KEYS.pro}`,
		});
		expect(answer.status).toBe(200);
	});

	it('parses Host headers strictly', () => {
		expect(hostNameOf('LocalHost:80')).toBe('localhost');
		expect(hostNameOf('[::1]:8787')).toBe('[::1]');
		expect(hostNameOf('127.0.0.1')).toBe('127.0.0.1');
		expect(hostNameOf('::1')).toBeUndefined();
		expect(hostNameOf('user@localhost')).toBeUndefined();
		expect(hostNameOf('localhost:port')).toBeUndefined();
	});
});

describe('bodies', () => {
	it.each([
		['text/plain', 'text/plain'],
		['a form', 'application/x-www-form-urlencoded'],
		['multipart', 'multipart/form-data; boundary=x'],
		['JSON-looking but not JSON', 'application/json-patch+json'],
	])('refuses %s (415), and changes nothing', async (_case, contentType) => {
		const answer = await raw(
			'POST',
			'/_control/usage',
			{ host: loopbackHost(), 'content-type': contentType },
			setUsage,
		);
		expectRefused(answer, 415, 'unsupported_media_type');
		expect(answer.json.error.message).toMatch(/application\/json/);
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it('refuses a body without Content-Type', async () => {
		const answer = await raw('POST', '/_control/usage', { host: loopbackHost() }, setUsage);
		expectRefused(answer, 415, 'unsupported_media_type');
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it('takes application/json with parameters, any case, and a POST without body', async () => {
		const answer = await raw(
			'POST',
			'/_control/usage',
			{ host: loopbackHost(), 'content-type': 'Application/JSON; charset=utf-8' },
			setUsage,
		);
		expect(answer.status).toBe(200);
		expect((await raw('POST', '/_control/reset', { host: loopbackHost() })).status).toBe(200);
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
	});

	it('leaves the API alone: /v1 still reads any content type as JSON', async () => {
		const answer = await raw(
			'POST',
			'/v1/decide/ticket-routing',
			{
				host: loopbackHost(),
				authorization: `Bearer ${DEMO_KEYS.pro}`,
				'content-type': 'text/plain',
			},
			JSON.stringify({ input: { subject: 'Invoice', body: 'I was charged twice' } }),
		);
		expect(answer.status).toBe(200);
	});
});

describe('clock moves', () => {
	const clockOf = async (): Promise<number> =>
		Date.parse((await h.control('GET', '/clock')).now as string);

	async function refusedMove(body: string, field: string): Promise<string> {
		const before = await clockOf();
		const answer = await raw(
			'POST',
			'/_control/clock',
			{ host: loopbackHost(), 'content-type': 'application/json' },
			body,
		);
		expect(answer.status).toBe(400);
		expect(answer.json.error.details[0].field).toBe(field);
		// Nothing moved (a little real time passed).
		expect(Math.abs((await clockOf()) - before)).toBeLessThan(5_000);
		return answer.json.error.details[0].message as string;
	}

	it('refuses a negative advance', async () => {
		expect(await refusedMove('{"advance_ms": -1}', 'advance_ms')).toMatch(/negative/);
	});

	it('refuses NaN and infinite advances (JSON that overflows to Infinity)', async () => {
		await refusedMove('{"advance_ms": "NaN"}', 'advance_ms');
		await refusedMove('{"advance_ms": 1e999}', 'advance_ms');
		await refusedMove('{"advance_ms": -1e999}', 'advance_ms');
	});

	it('refuses more than 400 days in one move; takes 400 days', async () => {
		expect(await refusedMove(`{"advance_ms": ${MAX_CLOCK_STEP_MS + 1}}`, 'advance_ms')).toMatch(
			/400 days/,
		);
		const before = await clockOf();
		await h.control('POST', '/clock', { advance_ms: 400 * DAY_MS });
		expect((await clockOf()) - before).toBeGreaterThanOrEqual(400 * DAY_MS);
	});

	it('refuses moves that add up to more than ten years ahead of real time', async () => {
		for (let move = 0; move < 9; move += 1)
			await h.control('POST', '/clock', { advance_ms: 400 * DAY_MS });
		expect(await refusedMove(`{"advance_ms": ${400 * DAY_MS}}`, 'advance_ms')).toMatch(/ten years/);
	});

	it('set: refuses the past and more than ten years ahead; takes a date in between', async () => {
		expect(await refusedMove('{"set": "2001-01-01T00:00:00Z"}', 'set')).toMatch(/past/);
		const farAway = new Date(Date.now() + 3700 * DAY_MS).toISOString();
		expect(await refusedMove(JSON.stringify({ set: farAway }), 'set')).toMatch(/ten years/);
		await refusedMove('{"set": "not a date"}', 'set');
		const target = new Date(Date.now() + 30 * DAY_MS).toISOString();
		await h.control('POST', '/clock', { set: target });
		expect(Math.abs((await clockOf()) - Date.parse(target))).toBeLessThan(5_000);
	});

	it('refuses a rate window over an hour', async () => {
		expect(await refusedMove('{"rate_window_ms": 3600001}', 'rate_window_ms')).toMatch(/one hour/);
	});
});
