/** Decisions as the service returns them, for unit tests that need one without a sandbox. */
import type { Decision } from '../../src/contract';

/**
 * `ticket-routing` with a personal-data field and a field named like JavaScript's own property;
 * `constructorPii`: whether that field is declared personal data.
 */
export function ticketRoutingDecision(options: { constructorPii: boolean }): Decision {
	return {
		slug: 'ticket-routing',
		name: 'Ticket routing',
		description: '',
		type: 'route',
		live_version: 1,
		updated_at: '2026-01-01T00:00:00.000Z',
		confidence_threshold: 0.7,
		uncertainty_policy: 'uncertain_branch',
		context: {
			description: '',
			fields: [
				{ name: 'subject', type: 'string', required: true, pii: false },
				{ name: 'email', type: 'string', required: false, pii: true },
				{ name: 'constructor', type: 'string', required: false, pii: options.constructorPii },
			],
		},
		instructions: 'Which team?',
		options: ['billing', 'technical'],
	};
}
