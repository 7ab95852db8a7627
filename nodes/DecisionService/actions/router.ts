import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import * as decision from './decision';
import * as run from './run';
import * as template from './template';
import { ownValue } from '../../../src/contract';

type OperationModule = {
	execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[][]>;
};

/** Operation modules by resource and operation value ("getAll" is n8n's value for Get Many). */
const operations: Record<string, Record<string, OperationModule>> = {
	decision: {
		create: decision.create,
		decide: decision.decide,
		evaluate: decision.evaluate,
		get: decision.get,
		getAll: decision.getMany,
		review: decision.review,
	},
	template: { getAll: template.getMany },
	run: { sendFeedback: run.sendFeedback },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = ownValue(ownValue(operations, resource), operation) as OperationModule | undefined;
	if (!module) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	return module.execute.call(this, items);
}
