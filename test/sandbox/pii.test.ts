/** Pseudonymisation: each detector, declared fields, strict mode by plan, and nothing raw in the store. */
import { isValidIban, isValidLuhn, pseudonymise } from '../../sandbox/pii';
import { DEMO_KEYS, useHarness } from './helpers';

const EMAIL = 'jane.doe@example.com';
const PHONE = '+33 6 12 34 56 78';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const BAD_IBAN = 'DE00 3704 0044 0532 0130 00';
const URL = 'https://example.com/orders/123?token=abc';
const DATE = '2024-03-12';
const CARD = '4111 1111 1111 1111';
const IP = '192.168.10.20';
const DECLARED = 'customer@private.example';

describe('detectors (unit)', () => {
	it.each([
		['EMAIL', `write to ${EMAIL} please`, EMAIL],
		['PHONE', `call ${PHONE} tonight`, PHONE],
		['PHONE', 'or (415) 555-0100 in the US', '(415) 555-0100'],
		['IBAN', `pay to ${IBAN} today`, IBAN],
		['URL', `see ${URL}.`, URL],
		['DATE', `born ${DATE}`, DATE],
		['DATE', 'on 12/03/2024 at noon', '12/03/2024'],
		['DATE', 'since 3 March 2024', '3 March 2024'],
		['DATE', 'depuis le 12 mars 2024', '12 mars 2024'],
	])('%s: %s', (kind, text, raw) => {
		const result = pseudonymise(text, [], 'standard');
		expect(result.count).toBe(1);
		expect(result.kinds).toEqual({ [kind]: 1 });
		expect(result.value).toContain(`<${kind}_1>`);
		expect(result.value).not.toContain(raw);
	});

	it('a bad IBAN checksum is not an IBAN: left alone and not counted (nor taken for a phone)', () => {
		expect(isValidIban(IBAN.replace(/ /g, ''))).toBe(true);
		expect(isValidIban(BAD_IBAN.replace(/ /g, ''))).toBe(false);
		const result = pseudonymise(`wrong account ${BAD_IBAN}`, [], 'standard');
		expect(result.count).toBe(0);
		expect(result.value).toBe(`wrong account ${BAD_IBAN}`);
	});

	it('strict mode adds card numbers (Luhn) and IPv4; standard mode leaves them', () => {
		const text = `card ${CARD} from ${IP}, not a card: 4111 1111 1111 1112`;
		expect(isValidLuhn('4111111111111111')).toBe(true);
		expect(isValidLuhn('4111111111111112')).toBe(false);
		expect(pseudonymise(text, [], 'standard').count).toBe(0);
		const strict = pseudonymise(text, [], 'strict');
		expect(strict.kinds).toEqual({ CARD: 1, IP: 1 });
		expect(strict.value).toBe('card <CARD_1> from <IP_1>, not a card: 4111 1111 1111 1112');
	});

	it('declared pii fields are replaced whole, whatever their type; the same value keeps its token', () => {
		const result = pseudonymise(
			{ customer_email: DECLARED, account: { id: 42 }, body: `me: ${EMAIL} and again ${EMAIL}` },
			[
				{ name: 'customer_email', pii: true },
				{ name: 'account', pii: true },
			],
			'standard',
		);
		expect(result.value).toEqual({
			customer_email: '<CUSTOMER_EMAIL_1>',
			account: '<ACCOUNT_1>',
			body: 'me: <EMAIL_1> and again <EMAIL_1>',
		});
		expect(result.count).toBe(4);
	});

	it('object keys are scanned too, at every depth; declared field names are kept', () => {
		const result = pseudonymise(
			{
				customer_email: DECLARED,
				[EMAIL]: 'vip',
				notes: { [PHONE]: { [`born ${DATE}`]: true }, list: [{ [URL]: 1 }] },
			},
			[{ name: 'customer_email', pii: true }],
			'standard',
		);
		expect(result.value).toEqual({
			customer_email: '<CUSTOMER_EMAIL_1>',
			'<EMAIL_1>': 'vip',
			notes: { '<PHONE_1>': { 'born <DATE_1>': true }, list: [{ '<URL_1>': 1 }] },
		});
		expect(result.count).toBe(5);
		expect(result.kinds).toEqual({ CUSTOMER_EMAIL: 1, EMAIL: 1, PHONE: 1, DATE: 1, URL: 1 });
	});

	it('keys that pseudonymise alike keep every entry; __proto__ stays a plain key', () => {
		const input = JSON.parse(
			`{"<EMAIL_1>": "already a token", "${EMAIL}": "raw", "__proto__": {"${EMAIL}": 2}}`,
		) as Record<string, unknown>;
		const result = pseudonymise(input, [], 'standard');
		expect(Object.keys(result.value)).toEqual(['<EMAIL_1>', '<EMAIL_1>~2', '__proto__']);
		expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
		expect(JSON.stringify(result.value)).toBe(
			'{"<EMAIL_1>":"already a token","<EMAIL_1>~2":"raw","__proto__":{"<EMAIL_1>":2}}',
		);
	});

	// No clock in the assertion (a busy machine would fail it): at 200 000 characters a pattern that
	// backtracks quadratically needs ~10^10 steps (tens of seconds), past this test's 20 s timeout, while a
	// linear pass takes milliseconds. Timings live in bench/.
	it('runs in linear time on long adversarial inputs (no catastrophic backtracking)', () => {
		const size = 200_000;
		const inputs = [
			'a'.repeat(size),
			'a.'.repeat(size / 2),
			'1'.repeat(size),
			'1-'.repeat(size / 2),
			'( '.repeat(size / 2),
			`<${'A_1'.repeat(size / 3)}`,
			`${'x'.repeat(size)}@`,
			'AB12'.repeat(size / 4),
			`1 ${' '.repeat(size)}`,
		];
		for (const input of inputs) {
			const result = pseudonymise(input, [], 'strict');
			expect(typeof result.count).toBe('number');
		}
	}, 20_000);

	it('ordinary numbers and words are left alone', () => {
		const text = 'Order 12345 of 3 items costs 1 000 euros, version 1.4.2, call me maybe';
		expect(pseudonymise(text, [], 'strict')).toMatchObject({ count: 0, value: text });
	});
});

describe('over HTTP, before the engine', () => {
	const h = useHarness();

	const ticket = {
		subject: `Invoice ${DATE}`,
		body: `I was charged twice. Mail ${EMAIL}, phone ${PHONE}, IBAN ${IBAN}, wrong one ${BAD_IBAN}, see ${URL}. Card ${CARD} from ${IP}.`,
		customer_email: DECLARED,
		plan: 'pro',
	};
	// Every raw value the pseudonymisation must remove (the bad IBAN is not one: it stays, by design).
	const raws = [
		EMAIL,
		PHONE,
		IBAN,
		IBAN.replace(/ /g, ''),
		URL,
		DATE,
		DECLARED,
		'jane.doe',
		'example.com/orders',
	];

	/** Fails with a short message (not the whole haystack) when `needle` is in `haystack`. */
	function expectAbsent(haystack: string, needle: string): void {
		if (haystack.includes(needle)) throw new Error(`"${needle}" found in the stored state`);
	}

	it('counts every substitution in pii_redacted; the stored run holds only the pseudonymised input', async () => {
		const answer = await h.decide(DEMO_KEYS.free, 'ticket-routing', { input: ticket });
		expect(answer.status).toBe(200);
		// email, phone, IBAN, URL, date, declared customer_email; the bad IBAN, card and IP are not counted on Free.
		expect(answer.json.pii_redacted).toBe(6);
		expect(answer.json.choice).toBe('billing');

		const stored = await h.control('GET', `/runs/${answer.json.run_id}?key=${DEMO_KEYS.free}`);
		expect(stored.pii_kinds).toEqual({
			DATE: 1,
			EMAIL: 1,
			PHONE: 1,
			IBAN: 1,
			URL: 1,
			CUSTOMER_EMAIL: 1,
		});
		expect(stored.input).toEqual({
			subject: 'Invoice <DATE_1>',
			body: `I was charged twice. Mail <EMAIL_1>, phone <PHONE_1>, IBAN <IBAN_1>, wrong one ${BAD_IBAN}, see <URL_1>. Card ${CARD} from ${IP}.`,
			customer_email: '<CUSTOMER_EMAIL_1>',
			plan: 'pro',
		});
		const everything = JSON.stringify(h.sandbox.store.snapshot());
		for (const raw of raws) expectAbsent(everything, raw);
		expect(everything).toContain('<CUSTOMER_EMAIL_1>');
		expectAbsent(JSON.stringify(h.sandbox.store.findRun(answer.json.run_id)), EMAIL);
	});

	it('strict mode is on for the Pro account only among Free/Starter/Pro: cards and IPs counted there', async () => {
		const free = await h.decide(DEMO_KEYS.free, 'ticket-routing', { input: ticket });
		const starter = await h.decide(DEMO_KEYS.starter, 'ticket-routing', { input: ticket });
		const pro = await h.decide(DEMO_KEYS.pro, 'ticket-routing', { input: ticket });
		expect(free.json.pii_redacted).toBe(6);
		expect(starter.json.pii_redacted).toBe(6);
		expect(pro.json.pii_redacted).toBe(8);
		const stored = await h.control('GET', `/runs/${pro.json.run_id}?key=${DEMO_KEYS.pro}`);
		expect(stored.input.body).toContain('Card <CARD_1> from <IP_1>.');
		const proAccount = h.sandbox.store
			.snapshot()
			.accounts.find((account) => account.plan === 'pro');
		const proState = JSON.stringify(proAccount?.runs);
		expect(proState).toContain('<CARD_1>');
		for (const raw of [...raws, CARD, IP]) expectAbsent(proState, raw);
	});

	it('personal data in object keys never reaches the stored run', async () => {
		const answer = await h.decide(DEMO_KEYS.free, 'ticket-routing', {
			input: {
				subject: 'Invoice',
				body: 'I was charged twice on my invoice',
				contacts: { [EMAIL]: 'primary', [PHONE]: 'mobile' },
			},
		});
		expect(answer.status).toBe(200);
		expect(answer.json.pii_redacted).toBe(2);
		const stored = await h.control('GET', `/runs/${answer.json.run_id}?key=${DEMO_KEYS.free}`);
		expect(stored.input.contacts).toEqual({ '<EMAIL_1>': 'primary', '<PHONE_1>': 'mobile' });
		const everything = JSON.stringify(h.sandbox.store.snapshot());
		expectAbsent(everything, EMAIL);
		expectAbsent(everything, PHONE);
	});

	it('free-text input is scanned too', async () => {
		const answer = await h.decide(DEMO_KEYS.free, 'ticket-routing', {
			input: `Refund to ${IBAN} please, write to ${EMAIL}`,
		});
		expect(answer.json.pii_redacted).toBe(2);
		const stored = await h.control('GET', `/runs/${answer.json.run_id}?key=${DEMO_KEYS.free}`);
		expect(stored.input).toBe('Refund to <IBAN_1> please, write to <EMAIL_1>');
	});
});
