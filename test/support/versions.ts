/** New live versions of the sandbox's seeded decisions, made as the service's app would. */
import type { TestSandbox } from '../../harness/sandbox';
import { SEED_DECISIONS } from '../../sandbox/seed';

const SLUG = 'ticket-routing';

/**
 * A new live version of `ticket-routing`: billing and technical swap descriptions (`swapped`: far
 * worse on the same rows, by design), or the options as seeded (as good as version 1).
 */
export async function publishTicketVersion(
	sb: TestSandbox,
	key: string,
	swapped = true,
): Promise<void> {
	const seeded = SEED_DECISIONS.find((each) => each.slug === SLUG)!;
	const options = (seeded as { options: Array<{ key: string; description?: string }> }).options;
	const described = new Map(options.map((option) => [option.key, option.description]));
	const swap: Record<string, string> = swapped
		? { billing: 'technical', technical: 'billing' }
		: {};
	await sb.control('POST', `/decisions/${SLUG}/versions`, {
		key,
		options: options.map((option) => ({
			key: option.key,
			description: described.get(swap[option.key] ?? option.key),
		})),
	});
}
