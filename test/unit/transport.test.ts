import { classifyTransportCode, flattenHeaders } from '../../src/client';

describe('flattenHeaders', () => {
	it('lower-cases names, joins repeated values, keeps numbers as text and drops missing ones', () => {
		expect(
			flattenHeaders({
				'X-RateLimit-Remaining': '4',
				'Set-Cookie': ['a=1', 'b=2'],
				'Content-Length': 12,
				Location: undefined,
			}),
		).toEqual({
			'x-ratelimit-remaining': '4',
			'set-cookie': 'a=1, b=2',
			'content-length': '12',
		});
	});
});

describe('classifyTransportCode', () => {
	it('tells never-connected failures from those after which the server may have run the request', () => {
		expect(classifyTransportCode('ECONNREFUSED')).toBe('connect');
		expect(classifyTransportCode('ETIMEDOUT')).toBe('timeout');
		expect(classifyTransportCode('ERR_CANCELED')).toBe('aborted');
		expect(classifyTransportCode('ECONNRESET')).toBe('reset');
		expect(classifyTransportCode(undefined)).toBe('reset');
	});
});
