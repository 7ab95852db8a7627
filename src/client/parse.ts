/** Reads a 2xx body with the contract's schema; anything else is a ResponseFormatError naming the field. */
import type { ZodMiniType } from 'zod/v4/mini';
import { errorEnvelopeSchema, ownValue, restoreOwnProto } from '../contract';
import { ResponseFormatError, scrubSecrets } from './errors';
import type { TransportResponse } from './transport';

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
	let value: unknown = body;
	for (const key of path) {
		value = ownValue(value, String(key));
	}
	return value;
}

export function parseAnswer<T>(
	response: TransportResponse,
	schema: ZodMiniType<T>,
	context: {
		label: string;
		secrets: readonly string[];
		mayHaveBeenCharged: boolean;
		/** A request that changes something (a create, feedback): a 2xx says it was done. */
		changesState: boolean;
	},
): T {
	// Said once in every message below: the 2xx status means the change was made, answer or not.
	const done = context.changesState
		? ' The status says it was carried out: check before sending it again.'
		: '';
	let json: unknown;
	try {
		json = JSON.parse(response.body);
	} catch {
		// src/ is n8n-free; the node turns every client error into a NodeApiError (nodes/…/errors.ts).
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw new ResponseFormatError({
			code: 'invalid_response',
			status: response.status,
			mayHaveBeenCharged: context.mayHaveBeenCharged,
			message: `The Decision Service answered ${context.label} with status ${response.status} but a body that is not JSON.${done}`,
		});
	}
	const parsed = schema.safeParse(json);
	// A key `__proto__` in the answer stays a field, never the prototype of what the node reads.
	if (parsed.success) return restoreOwnProto(parsed.data);
	// A gateway or a faulty deployment can wrap the service's error in a 2xx: say what it said.
	const envelope = errorEnvelopeSchema.safeParse(json);
	if (envelope.success) {
		const { code, message } = envelope.data.error;
		throw new ResponseFormatError({
			code: 'invalid_response',
			status: response.status,
			mayHaveBeenCharged: context.mayHaveBeenCharged,
			message: scrubSecrets(
				`The Decision Service answered ${context.label} with status ${response.status} but an error instead of the answer (${code.slice(0, 60)}): ${message.slice(0, 300)}${done}`,
				context.secrets,
			),
		});
	}
	const issue = parsed.error.issues[0];
	const field = issue.path.map(String).join('.') || '(body)';
	const received = JSON.stringify(valueAt(json, issue.path)) ?? 'nothing';
	throw new ResponseFormatError({
		code: 'invalid_response',
		status: response.status,
		mayHaveBeenCharged: context.mayHaveBeenCharged,
		details: parsed.error.issues.map((each) => ({
			field: each.path.map(String).join('.'),
			message: each.message,
		})),
		message: scrubSecrets(
			`Unexpected answer to ${context.label}: field "${field}" ${issue.message.toLowerCase()} (received ${received.slice(0, 80)}).${done}`,
			context.secrets,
		),
	});
}
