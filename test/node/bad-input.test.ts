/**
 * A corpus of bad inputs a careless user or an upstream node can produce. Each gets a message
 * naming the item and the field, spends no quota, and leaves the other items routed.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { stoppedText } from '../../nodes/DecisionService/pipeline/prepare';
import { decide } from './helpers';

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => sb.close());
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

/** The good items send their body as text; the bad ones their `text` (or nothing). */
const TEXT_OR_BODY =
	'={{ "text" in $json ? $json.text : $json.subject === undefined ? undefined : $json.body }}';
const good = {
	subject: 'Refund',
	body: 'I was charged twice on my invoice, please refund the payment.',
};

/** [case, the bad item, the node parameters, what its message must say] */
const corpus: Array<[string, IDataObject, INodeParameters, RegExp]> = [
	[
		'JSON input not valid JSON',
		{ raw: '{"subject": ' },
		{ jsonInput: '={{ $json.raw ?? $json }}' },
		/The JSON input is not valid JSON/,
	],
	[
		'JSON input an array',
		{ list: [1, 2] },
		{ jsonInput: '={{ $json.list ?? $json }}' },
		/The JSON input must be an object/,
	],
	[
		'JSON input a number',
		{ n: 7 },
		{ jsonInput: '={{ $json.n ?? $json }}' },
		/The JSON input must be an object/,
	],
	['a required field missing', { body: 'no subject' }, {}, /Field "subject" is required/],
	[
		'a required field empty',
		{ subject: '', body: 'empty subject' },
		{},
		/Field "subject" is required/,
	],
	[
		'a required field null',
		{ subject: null, body: 'null subject' },
		{},
		/Field "subject" is required/,
	],
	[
		'a string field given a number',
		{ subject: 42, body: 'numeric subject' },
		{},
		/Field "subject" must be a string, got number/,
	],
	[
		'a string field given an object',
		{ subject: { a: 1 }, body: 'object subject' },
		{},
		/Field "subject" must be a string, got object/,
	],
	[
		'a string field given an array',
		{ subject: ['a'], body: 'array subject' },
		{},
		/Field "subject" must be a string, got array/,
	],
	[
		'Text input empty',
		{ text: '' },
		{ inputMode: 'text', text: TEXT_OR_BODY },
		/The Text input is empty/,
	],
	[
		'Text input only spaces',
		{ text: '   \n ' },
		{ inputMode: 'text', text: TEXT_OR_BODY },
		/The Text input is empty/,
	],
	['Text input missing', {}, { inputMode: 'text', text: TEXT_OR_BODY }, /The Text input is empty/],
	[
		'Text given the whole item ({{ $json }}, an object)',
		{ whole: true },
		{ inputMode: 'text', text: '={{ $json.whole ? $json : $json.body }}' },
		/Text is an object, not text/,
	],
	[
		'Text given a list',
		{ tags: ['a', 'b'] },
		{ inputMode: 'text', text: '={{ $json.tags ?? $json.body }}' },
		/Text is a list, not text/,
	],
	[
		'a slug that is not a slug',
		{ slug: 'Ticket Routing!' },
		{ decision: { __rl: true, mode: 'slug', value: '={{ $json.slug ?? "ticket-routing" }}' } },
		/.*slug "Ticket Routing!" is not a valid slug/,
	],
	[
		'no decision at all',
		{ slug: '' },
		{ decision: { __rl: true, mode: 'slug', value: '={{ $json.slug ?? "ticket-routing" }}' } },
		/No decision selected/,
	],
];

describe('an input that misses a field says what to do, in the input mode chosen', () => {
	const mapped = (mappingMode: string, value: Record<string, string> | null): INodeParameters => ({
		inputMode: 'mapFields',
		inputFields: { mappingMode, value, matchingColumns: [], schema: [] },
	});
	it.each<[string, IDataObject, INodeParameters, string]>([
		[
			'JSON input without subject',
			{ body: 'no subject' },
			{},
			'Give the JSON input "subject" with a text value, e.g. { "subject": {{ $json.subject }} }.',
		],
		[
			'Map Each Column Manually, subject mapped to an object',
			{ subject: { text: 'Refund' }, body: 'object subject' },
			mapped('defineBelow', { subject: '={{ $json.subject }}', body: '={{ $json.body }}' }),
			'Under Context Fields, map a text value to "subject", e.g. {{ $json.subject }}.',
		],
		[
			'Map Automatically, the item has no subject',
			{ title: 'Refund', body: 'no subject field' },
			mapped('autoMapInputData', null),
			'Map Automatically reads the item\'s own "subject": give the item one (an Edit Fields node before this one), or choose Map Each Column Manually and map a text value to "subject", e.g. {{ $json.subject }}.',
		],
	])('%s', async (_name, bad, parameters, todo) => {
		const result = await decide({
			slug: 'ticket-routing',
			items: [bad],
			credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
			extra: parameters,
		});
		expect(result.error?.message).toMatch(/^Field "subject" (is required|must be a string)/);
		// No "Item 0:" (n8n adds [item 0]), and the description is what to do, then the cost.
		expect(result.error?.description).toBe(
			`${todo} No request was sent for this item, so no quota was spent.`,
		);
	});
});

describe("one bad item under n8n's default On Error (Stop Workflow)", () => {
	it('stops the node before anything is sent, and its error says so and how to let the others go on', async () => {
		const before = (await sb.usage(DEMO_KEYS.pro)).used;
		const result = await decide({
			slug: 'ticket-routing',
			items: [good, { body: 'no subject' }, good],
			credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
		});
		expect(result.error?.message).toMatch(/^Field "subject" is required/);
		expect(result.error?.description).toBe(
			`Give the JSON input "subject" with a text value, e.g. { "subject": {{ $json.subject }} }. No request was sent for this item, so no quota was spent. ${stoppedText(3)}`,
		);
		expect(result.error?.description).toContain('On Error to "Continue (using error output)"');
		expect(result.outputs.flat()).toEqual([]);
		expect((await sb.usage(DEMO_KEYS.pro)).used - before).toBe(0);
	});

	it('with Continue (using error output), the others are routed and the item says nothing of stopping', async () => {
		const result = await decide({
			slug: 'ticket-routing',
			items: [good, { body: 'no subject' }, good],
			credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		const failed = result.outputs.at(-1) ?? [];
		expect(failed).toHaveLength(1);
		expect(JSON.stringify(failed[0].json)).not.toContain('Stop Workflow');
		expect(result.outputs.slice(0, -1).flat()).toHaveLength(2);
	});
});

describe('bad inputs', () => {
	it.each(corpus)(
		'%s: named, not charged, the others routed',
		async (_name, bad, parameters, message) => {
			const before = (await sb.usage(DEMO_KEYS.pro)).used;
			const result = await decide({
				slug: 'ticket-routing',
				items: [good, bad, good],
				credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
				onError: 'continueRegularOutput',
				extra: parameters,
			});
			expect(result.error).toBeUndefined();
			const failed = result.outputs[0].filter((item) => item.json.error !== undefined);
			expect(failed).toHaveLength(1);
			expect(failed[0].pairedItem).toEqual({ item: 1 });
			expect((failed[0].json.error as IDataObject).message).toMatch(message);
			expect((failed[0].json.error as IDataObject).may_have_been_charged).toBe(false);
			expect(result.outputs[0].filter((item) => item.json.decision !== undefined)).toHaveLength(2);
			expect((await sb.usage(DEMO_KEYS.pro)).used - before).toBe(2);
		},
	);

	it.each([
		['a revoked key', DEMO_KEYS.revoked, /API key/],
		['a spent monthly quota', DEMO_KEYS.free, /quota/i],
	])('%s is an account problem: the message blames no item', async (_name, key, message) => {
		if (key === DEMO_KEYS.free) {
			const usage = await sb.usage(DEMO_KEYS.free);
			await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: usage.quota });
		}
		const result = await decide({
			slug: 'ticket-routing',
			items: [good, good],
			credentials: { apiKey: key, baseUrl: sb.baseUrl },
		});
		expect(result.error?.message).toMatch(message);
		expect(result.error?.message).not.toMatch(/^Item \d/);
		expect(result.serialised).not.toContain(key);
	});

	it('text in any script, emoji and control characters is decided as sent', async () => {
		const texts = [
			'Remboursement demandé 💸',
			'استرداد المبلغ',
			'line\u0000break\ttab',
			'a'.repeat(20_000),
		];
		const result = await decide({
			slug: 'content-labels',
			items: texts.map((text) => ({ text })),
			credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
			extra: { inputMode: 'text', text: '={{ $json.text }}' },
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0]).toHaveLength(texts.length);
	});

	it('a key pasted with spaces and a newline around it works', async () => {
		const result = await decide({
			slug: 'ticket-routing',
			items: [good],
			credentials: { apiKey: ` ${DEMO_KEYS.pro}\n`, baseUrl: `${sb.baseUrl}/ ` },
		});
		expect(result.error).toBeUndefined();
	});

	it.each([
		[
			'without /v1',
			(url: string) => url.replace(/\/v1$/, ''),
			/must end with the API version \/v1/,
		],
		['http to a remote host', () => 'http://decisions.example.com/v1', /must use https:\/\//],
		['not a URL', () => 'decisions', /is not a URL/],
	])(
		'a base URL %s is refused before anything is sent, saying what to fix',
		async (_name, change, message) => {
			const before = (await sb.usage(DEMO_KEYS.pro)).used;
			const result = await decide({
				slug: 'ticket-routing',
				items: [good],
				credentials: { apiKey: DEMO_KEYS.pro, baseUrl: change(sb.baseUrl) },
			});
			expect(result.error?.message).toMatch(message);
			expect(result.serialised).not.toContain(DEMO_KEYS.pro);
			expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before);
		},
	);
});
