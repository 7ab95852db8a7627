/** The benchmark's workflows: a webhook with N items into one contender, as a user would build them. */
import { NODE_TYPE } from '../harness/n8n-env';

export type Contender = 'decision-service' | 'http-default' | 'http-batched' | 'no-op' | 'n8n-wait';

export interface BenchWorkflowOptions {
	id: string;
	contender: Contender;
	webhookPath: string;
	credentialId: string;
	baseUrl: string;
	apiKey: string;
	/**
	 * Our node's Concurrency (with a 600 s rate-limit wait and simplified answers). Unset: no
	 * option set at all, the node as it comes when dropped into a workflow.
	 */
	concurrency?: number;
	/**
	 * Each item's outcome comes back: the contender continues on fail (n8n's "On Error: Continue",
	 * one item per input, failed ones with their error) and the webhook answers with every item,
	 * not the first. So failed items and their errors can be counted.
	 */
	perItemOutcome?: boolean;
	/** Batching of the HTTP Request node: the plan's rate, as a careful user would set it. */
	batch?: { size: number; intervalMs: number };
	/**
	 * The HTTP Request node's key from an n8n Bearer Auth credential of this id, as n8n's docs set
	 * a key up (n8n then loads the credential in every execution, as it does ours). Unset: the key
	 * typed into a header parameter (the earlier benchmarks' set-up).
	 */
	bearerCredentialId?: string;
	/** 'n8n-wait': how long its Wait node waits, in seconds. */
	waitSeconds?: number;
}

/** The id of the Bearer Auth credential the bench imports beside each Decision Service one. */
export const bearerCredentialIdOf = (credentialId: string) => `${credentialId}Bearer`;

export function benchWorkflow(options: BenchWorkflowOptions): Record<string, unknown> {
	// n8n's own No Operation node: what n8n itself spends carrying the items, the baseline of the memory runs.
	const noOpNode = {
		name: 'Contender',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [660, 300],
		parameters: {},
	};
	// n8n alone: a Wait of one answer's time in place of the request, what no contender can beat.
	const waitNode = {
		name: 'Contender',
		type: 'n8n-nodes-base.wait',
		typeVersion: 1.1,
		position: [660, 300],
		webhookId: `${options.id}-wait`,
		parameters: { resume: 'timeInterval', amount: options.waitSeconds ?? 0, unit: 'seconds' },
	};
	const keyParameters = options.bearerCredentialId
		? {
				authentication: 'genericCredentialType',
				genericAuthType: 'httpBearerAuth',
			}
		: {
				sendHeaders: true,
				headerParameters: {
					parameters: [{ name: 'Authorization', value: `Bearer ${options.apiKey}` }],
				},
			};
	const contenderNode =
		options.contender === 'no-op'
			? noOpNode
			: options.contender === 'n8n-wait'
				? waitNode
				: options.contender === 'decision-service'
					? {
							name: 'Contender',
							type: NODE_TYPE,
							typeVersion: 1,
							position: [660, 300],
							credentials: {
								decisionServiceApi: { id: options.credentialId, name: options.credentialId },
							},
							parameters: {
								resource: 'decision',
								operation: 'decide',
								decision: { __rl: true, mode: 'slug', value: 'content-labels' },
								inputMode: 'json',
								jsonInput: '={{ $json }}',
								outputMode: 'singleOutput',
								options:
									options.concurrency === undefined
										? {}
										: { concurrency: options.concurrency, maxRateLimitWait: 600, simplify: true },
							},
						}
					: {
							name: 'Contender',
							type: 'n8n-nodes-base.httpRequest',
							typeVersion: 4.2,
							position: [660, 300],
							...(options.bearerCredentialId
								? {
										credentials: {
											httpBearerAuth: {
												id: options.bearerCredentialId,
												name: options.bearerCredentialId,
											},
										},
									}
								: {}),
							parameters: {
								method: 'POST',
								url: `${options.baseUrl}/decide/content-labels`,
								...keyParameters,
								sendBody: true,
								specifyBody: 'json',
								jsonBody: '={{ JSON.stringify({ input: $json }) }}',
								options:
									options.contender === 'http-batched' && options.batch
										? {
												batching: {
													batch: {
														batchSize: options.batch.size,
														batchInterval: options.batch.intervalMs,
													},
												},
											}
										: {},
							},
						};
	return {
		id: options.id,
		name: `bench ${options.contender} ${options.webhookPath}`,
		active: false,
		settings: {
			executionOrder: 'v1',
			saveDataSuccessExecution: 'none',
			saveDataErrorExecution: 'none',
			saveManualExecutions: false,
		},
		nodes: [
			{
				id: `${options.id}-hook`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 300],
				webhookId: `${options.id}-hook`,
				parameters: {
					httpMethod: 'POST',
					path: options.webhookPath,
					responseMode: 'lastNode',
					responseData: options.perItemOutcome ? 'allEntries' : 'firstEntryJson',
					options: {},
				},
			},
			{
				id: `${options.id}-split`,
				name: 'Items',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [300, 300],
				parameters: { fieldToSplitOut: 'body.items', options: {} },
			},
			{
				id: `${options.id}-contender`,
				...contenderNode,
				...(options.perItemOutcome ? { onError: 'continueRegularOutput' } : {}),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Contender', type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}
