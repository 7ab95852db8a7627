import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import type { Locale } from '../../../src/contract';
import { toNodeError } from '../errors';
import { createDecisionClient } from '../transport';

export async function getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	try {
		const client = await createDecisionClient(this);
		const locale = (this.getCurrentNodeParameter('locale') as Locale | undefined) ?? 'en';
		const catalogue = await client.listTemplates(locale);
		return catalogue.templates.map((template) => ({
			name: `${template.name} (${template.type})`,
			value: template.key,
			description: template.description,
		}));
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
