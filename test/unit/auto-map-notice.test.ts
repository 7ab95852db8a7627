import type { ContextField } from '../../src/contract';
import { autoMapNotice } from '../../nodes/DecisionService/pipeline/fields';

// The notice under Map Automatically names the fields it reads and the ones an item cannot lack;
// n8n's own notice under it gives the rule ("make sure the incoming data fields are named the
// same"), so ours never restates it (issue 45: two notices saying one thing).

const field = (name: string, required = false): ContextField =>
	({ name, type: 'string', required, pii: false }) as ContextField;

describe('autoMapNotice', () => {
	it.each<[string, ContextField[], string]>([
		[
			'the sandbox ticket form',
			[field('subject', true), field('body', true), field('customer_email'), field('plan')],
			'Fields read from each item: "subject", "body", "customer_email" and "plan"; an item without "subject" or "body" fails.',
		],
		[
			'one field, required',
			[field('text', true)],
			'Fields read from each item: "text"; an item without "text" fails.',
		],
		['nothing required', [field('a'), field('b')], 'Fields read from each item: "a" and "b".'],
		['no fields', [], 'This decision declares no context fields: choose Input: Text or JSON.'],
	])('%s', (_case, fields, words) => {
		expect(autoMapNotice(fields)).toBe(words);
		expect(autoMapNotice(fields)).not.toMatch(/named|make sure/i);
	});
});
