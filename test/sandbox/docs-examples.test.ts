/**
 * docs/sandbox.md's control examples, run as written against a real sandbox (issue 45): a user who
 * copies them gets the answers the page describes, and what the page says fails, fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

const DOC = readFileSync(join(__dirname, '../../docs/sandbox.md'), 'utf8');
const DOC_ORIGIN = 'http://127.0.0.1:8787';

interface Curl {
	method: string;
	url: string;
	body?: string;
}

/** The curl commands of the page's bash blocks: method, URL and `-d` body (continuations joined). */
function curlsOf(markdown: string): Curl[] {
	const blocks = [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
	const lines = blocks.flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'));
	return lines
		.filter((line) => line.startsWith('curl '))
		.map((line) => ({
			method: /-X (\w+)/.exec(line)?.[1] ?? 'GET',
			url: /'?(http:\/\/[^\s']+)'?/.exec(line)![1],
			body: /-d '([^']*)'/.exec(line)?.[1],
		}));
}

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});

async function send(curl: Curl) {
	const response = await request(curl.url.replace(DOC_ORIGIN, sb.sandbox.origin), {
		method: curl.method as 'GET' | 'POST',
		headers: curl.body === undefined ? {} : { 'content-type': 'application/json' },
		body: curl.body,
	});
	return { status: response.statusCode, body: (await response.body.json()) as never };
}

it('the usage and new-version examples answer as the page says', async () => {
	const curls = curlsOf(DOC);
	const usage = curls.find((curl) => curl.url.includes('/_control/usage'));
	const version = curls.find((curl) => curl.url.includes('/versions'));
	expect(usage).toBeDefined();
	expect(version).toMatchObject({ method: 'POST' });

	const used = await send(usage!);
	expect(used.status).toBe(200);
	expect(used.body).toMatchObject({ plan: 'pro', used: 0 });
	// The page says a usage request without ?key= answers 400.
	const keyless = await send({ method: 'GET', url: usage!.url.replace(/\?.*$/, '') });
	expect(keyless.status).toBe(400);

	const published = await send(version!);
	expect(published.status).toBe(200);
	const decision = published.body as {
		created_version: number;
		live_version: number;
		options: string[];
	};
	expect(decision.created_version).toBe(2);
	expect(decision.live_version).toBe(2);
	// Each option as the page shapes it, {key, description}.
	const sent = JSON.parse(version!.body!) as { key: string; options: unknown[] };
	expect(sent.key).toBe(DEMO_KEYS.pro);
	const keys = (sent.options as Array<{ key: string }>).map((option) => option.key);
	expect(keys).toEqual(['billing', 'technical', 'legal']);
	// The decision answers its options by key, in the order sent.
	expect(decision.options).toEqual(keys);
});
