import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { toNodeError } from '../errors';
import { createDecisionClient } from '../transport';

/** Decisions of the account for the picker, filtered by name or slug as the user types. */
export async function searchDecisions(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	try {
		const client = await createDecisionClient(this);
		const needle = (filter ?? '').trim().toLowerCase();
		const decisions = (await client.listDecisions()).filter(
			(decision) =>
				!needle || decision.slug.includes(needle) || decision.name.toLowerCase().includes(needle),
		);
		return {
			results: decisions.map((decision) => ({
				name: `${decision.name} (${decision.type}${decision.live_version === null ? ', draft' : ''})`,
				value: decision.slug,
			})),
		};
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
