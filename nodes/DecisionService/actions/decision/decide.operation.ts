import {
	NodeOperationError,
	updateDisplayOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type ResourceMapperValue,
} from 'n8n-workflow';
import type { Decision, Run } from '../../../../src/contract';
import { validateDecideInput } from '../../../../src/contract/validation';
import { routeLayout, type RouteLayout } from '../../outputs';
import { createDecisionClient, toNodeError } from '../../transport';
import { decisionLocator } from '../common';

const properties: INodeProperties[] = [
	decisionLocator,
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'mapFields',
		options: [
			{
				name: 'Map Fields',
				value: 'mapFields',
				description: 'Fill in the context fields the decision declares',
			},
			{ name: 'Text', value: 'text', description: 'Send one free text' },
			{
				name: 'JSON',
				value: 'json',
				description: 'Send a JSON object (by default the whole item)',
			},
		],
	},
	{
		displayName: 'Fields',
		name: 'inputFields',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['decision.value'],
			resourceMapper: {
				resourceMapperMethod: 'getContextFields',
				mode: 'add',
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: true,
				valuesLabel: 'Context Fields',
				noFieldsError:
					'Pick a decision to load its context fields. If it declares none, use Text or JSON input.',
			},
		},
		displayOptions: { show: { inputMode: ['mapFields'] } },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '={{ $json.text }}',
		required: true,
		description: 'The free text the decision is asked about',
		displayOptions: { show: { inputMode: ['text'] } },
	},
	{
		displayName: 'JSON',
		name: 'jsonInput',
		type: 'json',
		default: '={{ $json }}',
		required: true,
		description: 'The input object; by default the whole incoming item',
		displayOptions: { show: { inputMode: ['json'] } },
	},
	{
		displayName: 'Output',
		name: 'outputMode',
		type: 'options',
		noDataExpression: true,
		default: 'routeToOutputs',
		options: [
			{
				name: 'Route to Outputs',
				value: 'routeToOutputs',
				description:
					'One output per option, level or label, plus Uncertain, Pending Review and Other',
			},
			{ name: 'Single Output', value: 'singleOutput', description: 'Add the result to each item' },
		],
	},
	{
		displayName: 'Outputs',
		name: 'routes',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['decision.value'],
			resourceMapper: {
				resourceMapperMethod: 'getRouteOutputs',
				mode: 'map',
				valuesLabel: 'Output names (optional)',
				fieldWords: { singular: 'output', plural: 'outputs' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError: 'Pick a decision first: its options, levels or labels become the outputs.',
			},
		},
		displayOptions: { show: { outputMode: ['routeToOutputs'] } },
	},
	{
		displayName:
			'Outputs are saved with the workflow: a decision changed later on the service sends unknown keys to Other until you refresh them here. Score items go to the level at round(raw_score); classify items go to every retained label.',
		name: 'routesNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { outputMode: ['routeToOutputs'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 50 },
				default: 5,
				description:
					"How many items are decided at once. The plan's rate limit is respected whatever this is.",
			},
			{
				displayName: 'Engine',
				name: 'engine',
				type: 'options',
				default: 'auto',
				options: [
					{
						name: 'Automatic',
						value: 'auto',
						description: 'The primary engine, with the fallback when it does not answer',
					},
					{ name: 'Primary (Jev)', value: 'jev' },
					{ name: 'LLM Fallback', value: 'llm' },
				],
			},
			{
				displayName: 'Max Wait on Rate Limit (Seconds)',
				name: 'maxRateLimitWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 120,
				description: "Longest time one item may wait for the plan's rate limit before it fails",
			},
			{
				displayName: 'Result Field',
				name: 'resultField',
				type: 'string',
				default: 'decision',
				description: 'Name of the field the result is written to on each item',
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: false,
				description:
					'Whether to return only the answer, status, confidence and run ID instead of the full run',
			},
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeout',
				type: 'number',
				typeOptions: { minValue: 10 },
				default: 15,
				description: 'How long to wait for each answer; the service asks for at least 10 seconds',
			},
			{
				displayName: 'Validate Input Locally',
				name: 'validateInput',
				type: 'boolean',
				default: true,
				description:
					'Whether to check required fields and types before calling, so an invalid item fails alone and spends no quota',
			},
			{
				displayName: 'Version',
				name: 'version',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description: 'Version to run; 0 runs the live version',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['decide'] } },
	properties,
);

interface DecideOptions {
	concurrency?: number;
	engine?: 'auto' | 'jev' | 'llm';
	maxRateLimitWait?: number;
	resultField?: string;
	simplify?: boolean;
	timeout?: number;
	validateInput?: boolean;
	version?: number;
}

type DecideInput = string | Record<string, unknown>;

/** The compact answer: what a workflow branch or an AI agent needs, nothing else. */
function simplifyRun(run: Run): IDataObject {
	const answer: IDataObject = {
		run_id: run.run_id,
		status: run.status,
		confidence: run.confidence,
	};
	if (run.choice !== undefined) answer.choice = run.choice;
	if (run.score !== undefined) {
		answer.score = run.score;
		answer.level = levelOf(run);
	}
	if (run.labels !== undefined) answer.labels = run.labels;
	if (run.review_url !== undefined) answer.review_url = run.review_url;
	return answer;
}

/** The level a score run lands on: legend[round(raw_score)]. */
function levelOf(run: Run): string | undefined {
	if (run.raw_score === undefined || !run.legend) return undefined;
	return run.legend[String(Math.round(run.raw_score))];
}

/** Which outputs a run goes to. Unknown keys go to Other so nothing is dropped. */
function outputsFor(run: Run, layout: RouteLayout): number[] {
	if (run.status === 'pending') return [layout.pending];
	if (run.status === 'uncertain') return [layout.uncertain];
	if (run.labels !== undefined) {
		if (run.labels.length === 0) return [layout.noLabel ?? layout.other];
		const targets = new Set(run.labels.map((label) => layout.indexOf.get(label) ?? layout.other));
		return [...targets].sort((a, b) => a - b);
	}
	const key = run.choice ?? levelOf(run);
	return [key === undefined ? layout.other : (layout.indexOf.get(key) ?? layout.other)];
}

function parseJsonInput(
	raw: unknown,
	itemIndex: number,
	context: IExecuteFunctions,
): Record<string, unknown> {
	let value = raw;
	if (typeof raw === 'string') {
		try {
			value = JSON.parse(raw);
		} catch {
			throw new NodeOperationError(
				context.getNode(),
				`Item ${itemIndex}: the JSON input is not valid JSON`,
				{ itemIndex },
			);
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: the JSON input must be an object`,
			{ itemIndex },
		);
	}
	return value as Record<string, unknown>;
}

function inputFor(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): DecideInput {
	const mode = context.getNodeParameter('inputMode', itemIndex) as string;
	if (mode === 'text') {
		const text = context.getNodeParameter('text', itemIndex) as unknown;
		if (typeof text !== 'string' || text.trim() === '') {
			throw new NodeOperationError(
				context.getNode(),
				`Item ${itemIndex}: the Text input is empty`,
				{
					itemIndex,
					description:
						'Set Text to the item field that holds the text, for example {{ $json.body }}.',
				},
			);
		}
		return text;
	}
	if (mode === 'json')
		return parseJsonInput(context.getNodeParameter('jsonInput', itemIndex), itemIndex, context);
	// n8n's own check of the mapper would fail a missing field with a generic message; ours below
	// names the item and the field, using the decision's live context fields.
	const mapper = context.getNodeParameter('inputFields', itemIndex, undefined, {
		skipValidation: true,
	}) as ResourceMapperValue;
	const fields = (mapper.schema ?? []).map((field) => field.id);
	if (mapper.mappingMode === 'autoMapInputData') {
		// Auto-map: the item's own fields of the same names.
		const picked: Record<string, unknown> = {};
		for (const name of fields) if (item.json[name] !== undefined) picked[name] = item.json[name];
		return fields.length ? picked : { ...item.json };
	}
	const values = (mapper.value ?? {}) as Record<string, unknown>;
	const input: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(values))
		if (value !== undefined && value !== null && value !== '') input[name] = value;
	return input;
}

function slugOf(context: IExecuteFunctions, itemIndex: number): string {
	return String(
		context.getNodeParameter('decision', itemIndex, '', { extractValue: true }) ?? '',
	).trim();
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as DecideOptions;
	const routeMode = (this.getNodeParameter('outputMode', 0) as string) === 'routeToOutputs';
	const resultField = options.resultField?.trim() || 'decision';
	const concurrency = options.concurrency ?? 5;
	const client = await createDecisionClient(this, {
		concurrency,
		timeoutMs: (options.timeout ?? 15) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 120) * 1000,
	});

	let layout: RouteLayout | undefined;
	if (routeMode) {
		const routes = this.getNodeParameter('routes', 0) as ResourceMapperValue;
		layout = routeLayout((routes.schema ?? []).map((field) => field.id));
	}
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: layout ? layout.count : 1 },
		() => [],
	);
	const errorOutput = layout ? layout.other : 0;
	const continueOnFail = this.continueOnFail();

	// Everything that can fail locally fails before any request, so no quota is spent on it.
	const prepared: Array<{ slug: string; input: DecideInput } | { error: Error }> = [];
	const decisions = new Map<string, Promise<Decision>>();
	const validate = options.validateInput !== false;
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const slug = slugOf(this, itemIndex);
			if (!slug)
				throw new NodeOperationError(this.getNode(), `Item ${itemIndex}: no decision selected`, {
					itemIndex,
				});
			const input = inputFor(this, items[itemIndex], itemIndex);
			if (validate) {
				if (!decisions.has(slug)) decisions.set(slug, client.getDecision(slug));
				const decision = await decisions.get(slug)!;
				const problems = validateDecideInput(decision.context.fields, input);
				if (problems.length) {
					const listed = problems
						.map((problem) => `field "${problem.field.replace(/^input\./, '')}" ${problem.message}`)
						.join('; ');
					throw new NodeOperationError(this.getNode(), `Item ${itemIndex}: ${listed}`, {
						itemIndex,
						description: `Decision "${slug}" declares these fields. No request was sent for this item, so no quota was spent.`,
					});
				}
			}
			prepared.push({ slug, input });
		} catch (error) {
			const nodeError = toNodeError(this.getNode(), error, itemIndex);
			if (!continueOnFail) throw nodeError;
			prepared.push({ error: nodeError });
		}
	}

	// Decide concurrently: as many workers as the concurrency, each taking the next item when its
	// last one is answered (the client also caps concurrency and holds the rate). Only the items in
	// flight hold a request's state, and after a failure without continue-on-fail nothing more is sent.
	// Stopping the execution aborts requests in flight and rate-limit waits, and no item starts after.
	const cancelSignal = this.getExecutionCancelSignal();
	const decideOptions = {
		version: options.version ? options.version : undefined,
		engine: options.engine && options.engine !== 'auto' ? options.engine : undefined,
		signal: cancelSignal,
	};
	const results: Array<Run | Error> = new Array<Run | Error>(prepared.length);
	let firstFailure: Error | undefined;
	let nextIndex = 0;
	const worker = async (): Promise<void> => {
		while (nextIndex < prepared.length && !firstFailure && !cancelSignal?.aborted) {
			const itemIndex = nextIndex++;
			const entry = prepared[itemIndex];
			if ('error' in entry) {
				results[itemIndex] = entry.error;
				continue;
			}
			try {
				results[itemIndex] = await client.decide(entry.slug, entry.input, decideOptions);
			} catch (error) {
				const nodeError = toNodeError(this.getNode(), error, itemIndex);
				if (!continueOnFail) firstFailure ??= nodeError;
				results[itemIndex] = nodeError;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, prepared.length) }, worker));
	if (firstFailure) throw firstFailure;

	results.forEach((result, itemIndex) => {
		const pairedItem = { item: itemIndex };
		if (result instanceof Error) {
			outputs[errorOutput].push({ json: { error: result.message }, pairedItem });
			return;
		}
		const answer = options.simplify
			? simplifyRun(result)
			: ({
					...result,
					...(result.raw_score !== undefined ? { level: levelOf(result) } : {}),
				} as IDataObject);
		const json: IDataObject = { ...items[itemIndex].json, [resultField]: answer };
		const targets = layout ? outputsFor(result, layout) : [0];
		for (const target of targets)
			outputs[target].push({ json, binary: items[itemIndex].binary, pairedItem });
	});
	return outputs;
}
