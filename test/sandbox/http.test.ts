/** HTTP surface: auth, bodies, routes, templates, faults, control, persistence, logging, CLI flags. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorEnvelopeSchema, templateListSchema } from '../../src/contract';
import { parseArgs } from '../../sandbox/cli';
import { startSandbox } from '../../sandbox/server';
import { DEMO_KEYS, Harness, useHarness, type Answer } from './helpers';

const h = useHarness();

const ticket = { input: { subject: 'Invoice', body: 'I was charged twice on my invoice' } };

function expectError(answer: Answer, status: number, code: string): void {
	expect(answer.status).toBe(status);
	expect(errorEnvelopeSchema.parse(answer.json).error.code).toBe(code);
}

describe('authentication', () => {
	it('missing, malformed, unknown and revoked keys are 401 unauthorized, never echoing the key', async () => {
		const secret = 'dsk_test_this_is_not_a_key_9f8e7d';
		const cases: Array<Record<string, string>> = [
			{},
			{ authorization: `Basic ${secret}` },
			{ authorization: `Bearer ${secret}` },
			{ authorization: `Bearer ${DEMO_KEYS.revoked}` },
		];
		for (const headers of cases) {
			for (const path of ['/decisions', '/templates', '/decisions/ticket-routing']) {
				const answer = await h.api('GET', path, { headers });
				expectError(answer, 401, 'unauthorized');
				expect(answer.text).not.toContain(secret);
				expect(answer.text).not.toContain(DEMO_KEYS.revoked);
			}
		}
		const decide = await h.api('POST', '/decide/ticket-routing', {
			body: ticket,
			headers: { authorization: `Bearer ${secret}` },
		});
		expectError(decide, 401, 'unauthorized');
		expect(
			(await h.api('GET', '/decisions', { headers: { authorization: `bearer ${DEMO_KEYS.free}` } }))
				.status,
		).toBe(200);
	});
});

describe('bodies and routes', () => {
	it('invalid JSON is 400 invalid_json, whatever the content type', async () => {
		expectError(
			await h.api('POST', '/decide/ticket-routing', { key: DEMO_KEYS.pro, raw: '{"input": ' }),
			400,
			'invalid_json',
		);
		expectError(
			await h.api('POST', '/decisions', {
				key: DEMO_KEYS.pro,
				raw: 'name=x',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
			}),
			400,
			'invalid_json',
		);
	});

	it('any content type (or none) is parsed as JSON', async () => {
		const body = JSON.stringify(ticket);
		for (const contentType of [
			'text/plain',
			'application/octet-stream; charset=binary',
			'application/json; charset=utf-8',
		]) {
			const answer = await h.api('POST', '/decide/ticket-routing', {
				key: DEMO_KEYS.pro,
				raw: body,
				headers: { 'content-type': contentType },
			});
			expect(answer.status).toBe(200);
			expect(answer.json.choice).toBe('billing');
		}
	});

	it('a body over 1 MiB is 413 payload_too_large; exactly 1 MiB is accepted', async () => {
		const big = JSON.stringify({ input: 'x'.repeat(1024 * 1024) });
		expectError(
			await h.api('POST', '/decide/ticket-routing', { key: DEMO_KEYS.pro, raw: big }),
			413,
			'payload_too_large',
		);
		const prefix = '{"input":"';
		const exact = `${prefix}${'y'.repeat(1024 * 1024 - prefix.length - 2)}"}`;
		expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
		expect(
			(await h.api('POST', '/decide/ticket-routing', { key: DEMO_KEYS.unlimited, raw: exact }))
				.status,
		).toBe(200);
	});

	it('an unknown route is 404 not_found in the envelope', async () => {
		expectError(await h.api('GET', '/nothing-here', { key: DEMO_KEYS.pro }), 404, 'not_found');
		expectError(await h.call('GET', `${h.sandbox.origin}/v2/decisions`), 404, 'not_found');
		expectError(
			await h.api('POST', '/decide', { key: DEMO_KEYS.pro, body: ticket }),
			404,
			'not_found',
		);
	});
});

describe('templates', () => {
	it('English by default, French on request, 400 naming locale otherwise; six or more, all types, featured and use_case', async () => {
		const byDefault = templateListSchema.parse(
			(await h.api('GET', '/templates', { key: DEMO_KEYS.free })).json,
		);
		const english = templateListSchema.parse(
			(await h.api('GET', '/templates?locale=en', { key: DEMO_KEYS.free })).json,
		);
		const french = templateListSchema.parse(
			(await h.api('GET', '/templates?locale=fr', { key: DEMO_KEYS.free })).json,
		);
		expect(byDefault).toEqual(english);
		expect(english.locale).toBe('en');
		expect(french.locale).toBe('fr');
		expect(english.templates.length).toBeGreaterThanOrEqual(6);
		expect(new Set(english.templates.map((t) => t.type))).toEqual(
			new Set(['route', 'score', 'classify']),
		);
		expect(english.templates.some((t) => t.featured)).toBe(true);
		expect(english.templates.some((t) => !t.featured)).toBe(true);
		for (const template of [...english.templates, ...french.templates]) {
			expect(template.use_case.length).toBeGreaterThan(5);
			const items = template.options ?? template.levels ?? template.labels ?? [];
			expect(items.length).toBeGreaterThanOrEqual(template.type === 'classify' ? 1 : 2);
		}
		french.templates.forEach((template, index) => {
			expect(template.key).toBe(english.templates[index].key);
			expect(template.name).not.toBe(english.templates[index].name);
		});
		const bad = await h.api('GET', '/templates?locale=de', { key: DEMO_KEYS.free });
		expectError(bad, 400, 'invalid_request');
		expect(bad.json.error.details[0].field).toBe('locale');
	});
});

describe('fault injection', () => {
	async function pattern(seed: number): Promise<number[]> {
		await h.control('POST', '/faults', {
			seed,
			rules: [{ method: 'GET', path: '^/v1/decisions$', probability: 0.5, status: 503 }],
		});
		const statuses: number[] = [];
		for (let index = 0; index < 20; index += 1)
			statuses.push((await h.api('GET', '/decisions', { key: DEMO_KEYS.unlimited })).status);
		return statuses;
	}

	it('is repeatable: the same seed fails the same requests', async () => {
		const first = await pattern(42);
		const second = await pattern(42);
		const other = await pattern(43);
		expect(second).toEqual(first);
		expect(first).toContain(503);
		expect(first).toContain(200);
		expect(other).not.toEqual(first);
		expect((await h.control('GET', '/faults')).seed).toBe(43);
	});

	it('status faults: default codes by status, custom codes, Retry-After on 429, times, and only matching method/path', async () => {
		await h.control('POST', '/faults', {
			rules: [
				{ method: 'GET', path: '^/v1/templates', status: 500, times: 1 },
				{ method: 'GET', path: '^/v1/templates', status: 502, times: 1 },
				{ method: 'GET', path: '^/v1/templates', status: 503, times: 1 },
				{ method: 'GET', path: '^/v1/templates', status: 504, times: 1 },
				{ method: 'GET', path: '^/v1/templates', status: 429, retry_after: 3, times: 1 },
				{
					method: 'POST',
					path: '^/v1/decisions$',
					status: 502,
					code: 'generation_failed',
					times: 1,
				},
			],
		});
		const codes: string[] = [];
		for (let index = 0; index < 5; index += 1) {
			const answer = await h.api('GET', '/templates', { key: DEMO_KEYS.pro });
			codes.push(`${answer.status} ${answer.json.error.code}`);
			if (answer.status === 429) {
				expect(answer.headers['retry-after']).toBe('3');
				expect(answer.json.error.details).toEqual({ limit: 120, retry_after: 3 });
			}
		}
		expect(codes).toEqual([
			'500 internal_error',
			'502 bad_gateway',
			'503 service_unavailable',
			'504 gateway_timeout',
			'429 rate_limited',
		]);
		expect((await h.api('GET', '/templates', { key: DEMO_KEYS.pro })).status).toBe(200);
		expect((await h.api('GET', '/decisions', { key: DEMO_KEYS.pro })).status).toBe(200);
		expectError(
			await h.api('POST', '/decisions', { key: DEMO_KEYS.pro, body: { template: 'sentiment' } }),
			502,
			'generation_failed',
		);
		expect(
			(await h.api('POST', '/decisions', { key: DEMO_KEYS.pro, body: { template: 'sentiment' } }))
				.status,
		).toBe(201);
		// Injected errors take no rate budget: of the 2xx answers above, only the create is metered.
		expect((await h.usage(DEMO_KEYS.pro)).rate.remaining).toBe(120 - 1);
		await h.control('DELETE', '/faults');
		expect((await h.control('GET', '/faults')).rules).toEqual([]);
	});

	it('latency delays the answer', async () => {
		await h.control('POST', '/faults', {
			rules: [{ path: '^/v1/decisions$', latency_ms: 200, times: 1 }],
		});
		const started = Date.now();
		expect((await h.api('GET', '/decisions', { key: DEMO_KEYS.pro })).status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
	});

	it('reset before: the connection drops, nothing is charged; reset after: it drops once the decide was charged', async () => {
		const runsOf = () =>
			h.sandbox.store.snapshot().accounts.find((account) => account.plan === 'pro')?.runs.length;
		await h.control('POST', '/faults', {
			rules: [{ method: 'POST', path: '^/v1/decide/', reset: 'before', times: 1 }],
		});
		await expect(h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket)).rejects.toThrow();
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
		expect(runsOf()).toBe(0);

		await h.control('POST', '/faults', {
			rules: [{ method: 'POST', path: '^/v1/decide/', reset: 'after', times: 1 }],
		});
		await expect(h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket)).rejects.toThrow();
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(1);
		expect(runsOf()).toBe(1);
		expect((await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket)).status).toBe(200);
	});

	it('malformed: a 200 whose body is truncated, not JSON', async () => {
		await h.control('POST', '/faults', {
			rules: [{ method: 'GET', path: '^/v1/decisions$', malformed: true, times: 1 }],
		});
		const answer = await h.api('GET', '/decisions', { key: DEMO_KEYS.pro });
		expect(answer.status).toBe(200);
		expect(answer.text.length).toBeGreaterThan(0);
		expect(() => JSON.parse(answer.text)).toThrow();
		expect(answer.text.startsWith('{"decisions":')).toBe(true);
	});

	it('never touches the control surface; refuses a bad rule', async () => {
		await h.control('POST', '/faults', { rules: [{ status: 500 }] });
		expect((await h.api('GET', '/decisions', { key: DEMO_KEYS.pro })).status).toBe(500);
		expect(await h.control('GET', '/clock')).toHaveProperty('now');
		const bad = await h.call('POST', `${h.sandbox.origin}/_control/faults`, {
			body: { rules: [{ path: '(' }] },
		});
		expectError(bad, 400, 'invalid_request');
		expect(bad.json.error.details[0].field).toBe('rules.0.path');
	});
});

describe('control surface', () => {
	it('reset restores the seed: decisions, usage, clock, rate window, faults and drafter', async () => {
		await h.api('POST', '/decisions', { key: DEMO_KEYS.pro, body: { template: 'sentiment' } });
		await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket);
		await h.control('POST', '/clock', { advance_ms: 40 * 24 * 3600 * 1000, rate_window_ms: 5_000 });
		await h.control('POST', '/faults', { rules: [{ path: '^/v1/templates', status: 500 }] });
		await h.control('POST', '/config', { drafter: true });
		await h.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.pro,
			confidence_threshold: 0.1,
		});

		await h.reset();
		const decisions = await h.api('GET', '/decisions', { key: DEMO_KEYS.pro });
		expect(decisions.json.decisions.map((d: { slug: string }) => d.slug)).toEqual([
			'content-labels',
			'lead-scoring',
			'ticket-routing',
		]);
		expect(
			decisions.json.decisions.every((d: { live_version: number }) => d.live_version === 1),
		).toBe(true);
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(0);
		const clock = await h.control('GET', '/clock');
		expect(Math.abs(Date.parse(clock.now) - Date.now())).toBeLessThan(5_000);
		expect(clock.rate_window_ms).toBe(60_000);
		expect((await h.api('GET', '/templates', { key: DEMO_KEYS.pro })).status).toBe(200);
		expect(
			(
				await h.api('POST', '/decisions', {
					key: DEMO_KEYS.pro,
					body: { describe: 'Route to billing or sales' },
				})
			).status,
		).toBe(503);
		expect(await h.control('GET', '/config')).toMatchObject({ drafter: false });
	});

	it('usage: GET and POST answer plan, used, quota, period and rate; unknown keys are refused', async () => {
		const usage = await h.control('POST', '/usage', { key: DEMO_KEYS.starter, used: 42 });
		expect(usage).toMatchObject({
			plan: 'starter',
			used: 42,
			quota: 5000,
			rate: { limit: 60, remaining: 60 },
		});
		expect(usage.period).toMatch(/^\d{4}-\d{2}$/);
		const bad = await h.call('GET', `${h.sandbox.origin}/_control/usage?key=nope`);
		expectError(bad, 400, 'invalid_request');
		expect(bad.json.error.details[0].field).toBe('key');
	});

	it('is not served off loopback unless forced, nor when turned off', async () => {
		const open = await startSandbox({ host: '0.0.0.0', port: 0 });
		const forced = await startSandbox({ host: '0.0.0.0', port: 0, control: true });
		const off = await startSandbox({ port: 0, control: false });
		try {
			expect(open.control).toBe(false);
			expectError(await h.call('POST', `${open.origin}/_control/reset`), 404, 'not_found');
			expect(
				(await h.call('GET', `${open.baseUrl}/decisions`, { key: DEMO_KEYS.free })).status,
			).toBe(200);
			expect(forced.control).toBe(true);
			expect((await h.call('POST', `${forced.origin}/_control/reset`)).status).toBe(200);
			expectError(await h.call('POST', `${off.origin}/_control/reset`), 404, 'not_found');
		} finally {
			await Promise.all([open.close(), forced.close(), off.close()]);
		}
	});
});

describe('persistence (--data)', () => {
	let dir: string;
	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), 'sandbox-data-'));
	});
	afterAll(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	it('saves on close and loads at start: decisions, runs, usage and clock; never the raw personal data', async () => {
		const file = join(dir, 'state.json');
		const first = new Harness(await startSandbox({ port: 0, dataFile: file }));
		await first.api('POST', '/decisions', {
			key: DEMO_KEYS.starter,
			body: { template: 'urgency' },
		});
		const run = await first.decide(DEMO_KEYS.starter, 'ticket-routing', {
			input: {
				subject: 'Invoice',
				body: 'charged twice, mail me at kept.secret@example.com',
				customer_email: 'owner@example.org',
			},
		});
		await first.control('POST', '/clock', { advance_ms: 3_600_000 });
		await first.close();

		const text = await readFile(file, 'utf8');
		expect(text).toContain('"urgency"');
		expect(text).not.toContain('kept.secret@example.com');
		expect(text).not.toContain('owner@example.org');

		const second = new Harness(await startSandbox({ port: 0, dataFile: file }));
		try {
			const list = await second.api('GET', '/decisions', { key: DEMO_KEYS.starter });
			expect(list.json.decisions.map((d: { slug: string }) => d.slug)).toContain('urgency');
			expect((await second.usage(DEMO_KEYS.starter)).used).toBe(1);
			const stored = await second.control(
				'GET',
				`/runs/${run.json.run_id}?key=${DEMO_KEYS.starter}`,
			);
			expect(stored.input.customer_email).toBe('<CUSTOMER_EMAIL_1>');
			const clock = await second.control('GET', '/clock');
			expect(Date.parse(clock.now) - Date.now()).toBeGreaterThan(3_500_000);
		} finally {
			await second.close();
		}
	});

	it('saves after changes without waiting for close (debounced)', async () => {
		const file = join(dir, 'debounced.json');
		const sandbox = new Harness(await startSandbox({ port: 0, dataFile: file }));
		try {
			await sandbox.api('POST', '/decisions', {
				key: DEMO_KEYS.pro,
				body: { template: 'email-triage' },
			});
			await new Promise((resolve) => setTimeout(resolve, 600));
			// The slug comes from the template's name, "E-mail triage".
			expect(await readFile(file, 'utf8')).toContain('"e-mail-triage"');
		} finally {
			await sandbox.close();
		}
	});

	it('refuses to start on a file that is not sandbox state', async () => {
		const file = join(dir, 'broken.json');
		await writeFile(file, '{"hello": "world"}');
		await expect(startSandbox({ port: 0, dataFile: file })).rejects.toThrow(
			/not a sandbox data file/,
		);
	});
});

describe('logging', () => {
	it('one line per request with method, path, status and ms; never keys, query strings or bodies', async () => {
		const lines: string[] = [];
		const original = process.stdout.write.bind(process.stdout);
		const logged = await startSandbox({ port: 0, log: true });
		const spy = jest
			.spyOn(process.stdout, 'write')
			.mockImplementation((chunk: string | Uint8Array) => {
				lines.push(String(chunk));
				return true;
			});
		try {
			const harness = new Harness(logged);
			await harness.decide(DEMO_KEYS.pro, 'ticket-routing', {
				input: 'secret body text from jane@example.com',
			});
			await harness.api('GET', '/templates?locale=fr', { key: DEMO_KEYS.pro });
			await harness.api('GET', '/decisions', {
				headers: { authorization: 'Bearer dsk_test_wrong_key_123' },
			});
			await harness.usage(DEMO_KEYS.pro);
		} finally {
			spy.mockRestore();
			await logged.close();
		}
		expect(original).toBeDefined();
		const text = lines.join('');
		expect(lines.length).toBe(4);
		for (const line of lines) expect(line).toMatch(/^(GET|POST) \/[\w/-]+ \d{3} \d+\.\dms\n$/);
		expect(text).toContain('POST /v1/decide/ticket-routing 200');
		expect(text).toContain('GET /v1/decisions 401');
		for (const secret of ['secret body', 'jane@example.com', 'dsk_test', 'locale=fr', '?key'])
			expect(text).not.toContain(secret);
	});
});

describe('command line', () => {
	it('parses every flag', () => {
		expect(
			parseArgs([
				'--port',
				'0',
				'--host',
				'0.0.0.0',
				'--data',
				'state.json',
				'--drafter',
				'--no-control',
				'--fault-seed',
				'7',
				'--log',
			]),
		).toEqual({
			port: 0,
			host: '0.0.0.0',
			dataFile: join(process.cwd(), 'state.json'),
			drafter: true,
			control: false,
			faultSeed: 7,
			log: true,
		});
		expect(parseArgs(['--port=9000', '--control'])).toEqual({ port: 9000, control: true });
		expect(parseArgs([])).toEqual({});
	});
});
