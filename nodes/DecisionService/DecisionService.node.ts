import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';
import * as decision from './actions/decision';
import { router } from './actions/router';
import * as run from './actions/run';
import * as template from './actions/template';
import * as listSearch from './methods/list-search';
import * as loadOptions from './methods/load-options';
import * as resourceMapping from './methods/resource-mapping';
import { OUTPUTS_EXPRESSION } from './outputs/plan';
import { reviewWebhooks } from './actions/decision/review/description';

export class DecisionService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Decision Service',
		name: 'decisionService',
		icon: { light: 'file:decisionService.svg', dark: 'file:decisionService.dark.svg' },
		group: ['transform'],
		version: 1,
		// "Decide: ticket-routing". n8n's lint and community scanner accept only a string literal
		// here, so the function is written out in the string;
		// test/unit/outputs-list.test.ts evaluates it in n8n's expression engine for every operation.
		subtitle:
			'={{ (function (p) { var op = p.operation || "decide"; var at = ["decide", "create", "get", "getAll", "sendFeedback", "evaluate", "review"].indexOf(op); var name = at === -1 ? op : ["Decide", "Create", "Get", "Get Many", "Send Feedback", "Evaluate", "Review"][at]; var rl = p.decision; var slug = rl && typeof rl === "object" ? rl.value : rl; if ((p.resource || "decision") === "decision" && (op === "decide" || op === "get" || op === "evaluate" || op === "review")) { return typeof slug === "string" && slug.trim() !== "" ? name + ": " + slug.trim() : name; } var resource = p.resource || "decision"; var what = resource === "decision" ? (op === "getAll" ? "decisions" : "decision") : resource === "template" ? "templates" : resource === "run" ? "run" : undefined; return name + ": " + what; })($parameter) }}',
		description: 'Route, score and classify items with the Decision Service, one output per answer',
		defaults: { name: 'Decision Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// Outputs follow the saved "Outputs" parameter: the outputs plan, evaluated by n8n from its
		// source text (outputs/plan.ts says why it is self-contained).
		outputs: OUTPUTS_EXPRESSION,
		credentials: [{ name: 'decisionServiceApi', required: true }],
		// Review's page on the resume link of an execution waiting on this node (review/description.ts).
		webhooks: reviewWebhooks,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				default: 'decision',
				options: [
					{ name: 'Decision', value: 'decision' },
					{ name: 'Run', value: 'run' },
					{ name: 'Template', value: 'template' },
				],
			},
			...decision.description,
			...template.description,
			...run.description,
		],
	};

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return decision.review.webhook.call(this);
	}
}
