/** Base URLs as users type them: each bad one gets a sentence saying what to fix. */
import { checkBaseUrl } from '../../src/client';

test.each<[string, unknown, RegExp | string]>([
	['https with /v1', 'https://api.example.com/v1', 'https://api.example.com/v1'],
	['trailing slash and spaces', '  https://api.example.com/v1/ \n', 'https://api.example.com/v1'],
	['a path before /v1', 'https://example.com/decision/v1', 'https://example.com/decision/v1'],
	['http on loopback', 'http://127.0.0.1:8787/v1', 'http://127.0.0.1:8787/v1'],
	['http on localhost', 'http://localhost:8787/v1', 'http://localhost:8787/v1'],
	[
		'without /v1',
		'https://api.example.com',
		/^Base URL must end with the API version \/v1: https:\/\/api\.example\.com is not the Decision Service API's address\. It looks like https:\/\/api\.example\.com\/v1 \(the local sandbox, npm start: http:\/\/127\.0\.0\.1:8787\/v1\)\.$/,
	],
	['another version', 'https://api.example.com/v2', /must end with the API version \/v1/],
	['http to a remote host', 'http://api.example.com/v1', /must use https:\/\//],
	['ftp', 'ftp://api.example.com/v1', /must start with https:\/\//],
	['no scheme', 'api.example.com/v1', /is not a URL/],
	['empty', '', /is not a URL/],
	['not a string', 42, /is not a URL/],
	['a user and password', 'https://me:secret@api.example.com/v1', /must not carry a user name/],
	['a query', 'https://api.example.com/v1?key=1', /must not carry/],
])('%s', (_name, raw, expected) => {
	const checked = checkBaseUrl(raw);
	if (typeof expected === 'string') expect(checked).toEqual({ ok: true, baseUrl: expected });
	else expect(checked.ok ? 'ok' : checked.problem).toMatch(expected);
});

it('never repeats a password it was given', () => {
	const checked = checkBaseUrl('https://me:hunter2@api.example.com/v1');
	expect(JSON.stringify(checked)).not.toContain('hunter2');
});

describe("n8n's own address typed as the Base URL", () => {
	// n8n at http://127.0.0.1:5701: its address plus /v1 is not the API either.
	const checked = checkBaseUrl('http://127.0.0.1:5701/');
	const problem = checked.ok ? '' : checked.problem;

	it('says that the address is not the API', () => {
		expect(problem).toContain("http://127.0.0.1:5701 is not the Decision Service API's address");
	});

	it('offers no example made of the typed address plus /v1', () => {
		expect(problem).not.toContain('5701/v1');
		expect(problem).toContain('https://api.example.com/v1');
		expect(problem).toContain('http://127.0.0.1:8787/v1');
	});

	it('does not repeat a path, where a pasted key may be', () => {
		const other = checkBaseUrl('http://127.0.0.1:5701/sk_live_pasted');
		const problem = other.ok ? '' : other.problem;
		expect(problem).toContain("http://127.0.0.1:5701/… is not the Decision Service API's address");
		expect(problem).not.toContain('sk_live_pasted');
	});
});

it('never repeats a password given in an address without /v1', () => {
	const checked = checkBaseUrl('https://me:hunter2@api.example.com');
	expect(checked.ok).toBe(false);
	expect(JSON.stringify(checked)).not.toContain('hunter2');
});
