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
		/must end with the API version \/v1, e\.g\. https:\/\/api\.example\.com\/v1/,
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
