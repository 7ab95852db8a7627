import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNDS, runSchema } from '../../src/contract';
import {
	normalizeKey,
	splitItemList,
	validateCreateDecisionRequest,
	validateDecideInput,
} from '../../src/contract/validation';

describe('key normalisation', () => {
	it.each([
		['Billing Issue', 'billing-issue'],
		['  Crème Brûlée -- à la carte! ', 'creme-brulee-a-la-carte'],
		['ÉQUIPE_Support/N2', 'equipe-support-n2'],
		['---', ''],
	])('%j becomes %j', (name, key) => {
		expect(normalizeKey(name)).toBe(key);
	});

	it('gives the same slug for the same name, every time', () => {
		const name = 'Route Support Tickets (EU)';
		expect(new Set(Array.from({ length: 5 }, () => normalizeKey(name))).size).toBe(1);
	});

	it('cuts long names to 64 characters at a hyphen', () => {
		const slug = normalizeKey('word '.repeat(40));
		expect(slug.length).toBeLessThanOrEqual(BOUNDS.slugMax);
		expect(slug.endsWith('word')).toBe(true);
		expect(normalizeKey('x'.repeat(80))).toHaveLength(64);
	});
});

describe('item lists given as one string', () => {
	it('splits on commas', () => {
		expect(splitItemList('billing, technical ,sales,,')).toEqual(['billing', 'technical', 'sales']);
	});
	it('splits on lines first, so an item may contain commas', () => {
		expect(splitItemList('billing, invoices\r\ntechnical\n\nsales')).toEqual([
			'billing, invoices',
			'technical',
			'sales',
		]);
	});
});

describe('create request validation', () => {
	const definition = {
		name: 'Tickets',
		type: 'route',
		instructions: 'Where does this ticket go?',
	} as const;

	it('selects the shape by the fields present', () => {
		const template = validateCreateDecisionRequest({ template: 'support-ticket-routing' });
		const description = validateCreateDecisionRequest({
			describe: 'Route tickets to billing or tech',
		});
		const explicit = validateCreateDecisionRequest({ ...definition, options: 'a, b' });
		expect([template, description, explicit].map((v) => v.ok && v.value.shape)).toEqual([
			'template',
			'description',
			'definition',
		]);
	});

	it('normalises option keys and keeps descriptions', () => {
		const result = validateCreateDecisionRequest({
			...definition,
			options: ['Billing Issue', { key: 'Tech Support', description: 'Bugs and outages' }],
		});
		expect(result.ok && result.value.shape === 'definition' && result.value.items).toEqual([
			{ key: 'billing-issue', description: 'Billing Issue' },
			{ key: 'tech-support', description: 'Bugs and outages' },
		]);
	});

	it('gives labels the default threshold of 0.5 unless one is set', () => {
		const result = validateCreateDecisionRequest({
			name: 'Labels',
			type: 'classify',
			instructions: 'Which apply?',
			labels: ['spam', { key: 'toxic', threshold: 0.8 }],
		});
		expect(
			result.ok &&
				result.value.shape === 'definition' &&
				result.value.items.map((i) => i.threshold),
		).toEqual([0.5, 0.8]);
	});

	it('names the field of each problem', () => {
		const result = validateCreateDecisionRequest({
			...definition,
			options: 'only-one',
			levels: ['a', 'b'],
		});
		expect(result.ok).toBe(false);
		expect(!result.ok && result.details.map((d) => d.field).sort()).toEqual(['levels', 'options']);
	});

	it('refuses duplicate keys after normalisation', () => {
		const result = validateCreateDecisionRequest({
			...definition,
			options: ['Billing Issue', 'billing-issue'],
		});
		expect(!result.ok && result.details).toEqual([
			{ field: 'options.1', message: 'duplicates the key "billing-issue"' },
		]);
	});
});

describe('decide input validation', () => {
	const fields = [
		{ name: 'subject', type: 'string', required: true },
		{ name: 'seats', type: 'number', required: false },
		{ name: 'tags', type: 'array', required: false },
	] as const;

	it('accepts a matching object, extra fields and free text', () => {
		expect(
			validateDecideInput(fields, { subject: 'Help', seats: 3, tags: ['a'], extra: true }),
		).toEqual([]);
		expect(validateDecideInput(fields, 'free text about an invoice')).toEqual([]);
	});

	it('names each missing or mistyped field', () => {
		expect(validateDecideInput(fields, { seats: '3', tags: {} })).toEqual([
			{ field: 'input.subject', message: 'is required' },
			{ field: 'input.seats', message: 'must be a number, got string' },
			{ field: 'input.tags', message: 'must be an array, got object' },
		]);
	});
});

describe('lenient response parsing', () => {
	const run = {
		run_id: 'run_1',
		decision: 'd',
		version: 1,
		status: 'ok',
		choice: 'a',
		probabilities: { a: 0.9, b: 0.1 },
		confidence: 0.9,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1.0.0',
		latency_ms: 3,
		pii_redacted: 0,
	};
	it('keeps fields a newer service adds', () => {
		const parsed = runSchema.parse({ ...run, trace_id: 't-1' });
		expect(parsed).toMatchObject({ trace_id: 't-1', choice: 'a' });
	});
	it('names the field of an unknown enum value', () => {
		const parsed = runSchema.safeParse({ ...run, status: 'deferred' });
		expect(parsed.success).toBe(false);
		expect(!parsed.success && parsed.error.issues[0].path).toEqual(['status']);
	});
	it('loads no classic zod and still gives English messages (what the shipped bundle runs)', () => {
		// A fresh process: in this one, the sandbox's classic zod may already have set the locale.
		const script = [
			"const { runSchema } = require('./src/contract');",
			"const loaded = Object.keys(require.cache).filter((path) => path.includes('classic'));",
			'const parsed = runSchema.safeParse({ ...' + JSON.stringify(run) + ', run_id: 7 });',
			'console.log(JSON.stringify({ loaded, message: parsed.error.issues[0].message }));',
		].join('\n');
		const root = join(__dirname, '..', '..');
		const output = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
			cwd: root,
			encoding: 'utf8',
		});
		expect(JSON.parse(output)).toEqual({
			loaded: [],
			message: 'Invalid input: expected string, received number',
		});
	});
});

describe('OpenAPI document', () => {
	it('docs/openapi.json is what the contract generates', () => {
		const root = join(__dirname, '..', '..');
		const output = execFileSync(
			join(root, 'node_modules', '.bin', 'tsx'),
			['scripts/openapi.ts', '--check'],
			{ cwd: root, encoding: 'utf8' },
		);
		expect(output).toContain('up to date');
		const document = JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8'));
		expect(Object.keys(document.paths).sort()).toEqual([
			'/decide/{slug}',
			'/decisions',
			'/decisions/{slug}',
			'/runs/{run_id}/feedback',
			'/templates',
		]);
		expect(document.components.schemas.CreateFromDefinition.properties.name.maxLength).toBe(120);
	});
});
