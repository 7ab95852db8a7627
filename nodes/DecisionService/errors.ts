/**
 * The client's errors as n8n errors: the client's neutral message, plus a hint in the editor's
 * words (the credential, the node's options) as the description. The API key is never in either.
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';
import {
	AbortedError,
	DecisionNotLiveError,
	DecisionServiceError,
	GenerationFailedError,
	GenerationUnavailableError,
	InvalidRequestError,
	LocalValidationError,
	NetworkError,
	NotFoundError,
	PayloadTooLargeError,
	QuotaExceededError,
	RateLimitedError,
	RedirectError,
	ResponseFormatError,
	ServerError,
	TimeoutError,
	UnauthorizedError,
} from '../../src/client';

type ErrorClass = abstract new (...args: never[]) => DecisionServiceError;

const NOT_REPEATED =
	'It was not repeated because the service may have run (and charged) it; check the run history before sending it again.';

/** What to check for each "not found" the service names (a Map: the code is the service's word). */
const NOT_FOUND_HINTS = new Map<string, string>([
	['decision_not_found', 'Check the slug of the decision, or pick the decision from the list.'],
	['version_not_found', 'Check the version number (leave it empty or 0 for the live version).'],
	['template_not_found', 'Check the template, or pick it from the list.'],
	// A 404 without the API's error envelope: something else answers at the Base URL.
	[
		'http_404',
		"Check the credential's Base URL: the Decision Service API's address, ending with /v1.",
	],
	[
		'run_not_found',
		"Check the run ID; runs are purged after the plan's retention period (7 days on Free, 30 on paid plans).",
	],
]);

/** Hints by class, most specific first (the first `instanceof` match wins). */
const HINTS: Array<[ErrorClass, (error: DecisionServiceError) => string]> = [
	[
		LocalValidationError,
		() => 'No request was sent, so nothing was charged. Fix the fields named above.',
	],
	[InvalidRequestError, () => 'Fix the fields named above. Refused requests are not charged.'],
	[
		QuotaExceededError,
		(error) =>
			`Wait for the reset or upgrade the plan${(error as QuotaExceededError).upgradeUrl ? `: ${(error as QuotaExceededError).upgradeUrl}` : ''}.`,
	],
	[
		RateLimitedError,
		() =>
			'Raise "Max Wait on Rate Limit" in the options, send fewer items per run, or move to a plan with a higher rate limit.',
	],
	[
		UnauthorizedError,
		() =>
			'Check the API key in the credential: it may be mistyped, revoked, or meant for another base URL.',
	],
	[NotFoundError, (error) => NOT_FOUND_HINTS.get(error.code) ?? 'Check the slug or ID.'],
	[
		DecisionNotLiveError,
		() =>
			'Publish the decision in the app, or pick a published version with "Version" in the options.',
	],
	[PayloadTooLargeError, () => 'Send a smaller input (the request body must stay under 1 MiB).'],
	[
		GenerationUnavailableError,
		() => 'Create the decision from a template or from a definition instead.',
	],
	[
		GenerationFailedError,
		() => 'Rephrase the description, name the options, or give a definition instead.',
	],
	[
		ServerError,
		(error) =>
			error.mayHaveBeenCharged
				? `A gateway answered instead of the service. ${NOT_REPEATED}`
				: 'The service had a problem; try again later.',
	],
	[
		ResponseFormatError,
		(error) =>
			`${error.mayHaveBeenCharged ? `${NOT_REPEATED} ` : ''}${
				error.details === undefined
					? "Check that the credential's Base URL points at the Decision Service API and ends with /v1."
					: 'The service may be newer than this node: update the package.'
			}`,
	],
	[
		TimeoutError,
		(error) =>
			error.mayHaveBeenCharged
				? `${NOT_REPEATED} Raise "Timeout" in the options if the service is slow.`
				: 'Raise "Timeout" in the options, or try again later.',
	],
	[
		NetworkError,
		(error) =>
			error.mayHaveBeenCharged
				? NOT_REPEATED
				: 'Check the base URL in the credential and the network, then try again.',
	],
	[
		RedirectError,
		() =>
			'The service (or a gateway in front of it) answered with a redirect, which is never followed. Check the base URL in the credential.',
	],
	[AbortedError, () => 'The execution was stopped.'],
];

/** What the user can do about a client error, in the editor's words. */
export function hintFor(error: DecisionServiceError): string | undefined {
	const entry = HINTS.find(([errorClass]) => error instanceof errorClass);
	return entry?.[1](error);
}

/**
 * A client message as n8n shows it: a sentence (the client's are neutral fragments such as
 * "decide on … got no answer"); it names no item, n8n adds "[item N]" from the item index.
 */
const sentence = (message: string): string => message.charAt(0).toUpperCase() + message.slice(1);

/** An n8n error for a client error: message and hint a user can act on, never the key. */
export function toNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof LocalValidationError) {
		const refused = new NodeOperationError(node, sentence(error.message), {
			itemIndex,
			description: hintFor(error),
		});
		return markCharge(refused, false);
	}
	if (error instanceof DecisionServiceError) {
		// The service's code under a key n8n does not read as an HTTP status (it would rewrite the message).
		const message = sentence(error.message);
		const response: JsonObject = { message, serviceCode: error.code };
		const apiError = new NodeApiError(node, response, {
			message,
			description: hintFor(error),
			httpCode: error.status === undefined ? undefined : String(error.status),
			itemIndex,
		});
		apiError.context[SERVICE_CODE] = error.code;
		return markCharge(apiError, error.mayHaveBeenCharged);
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	const message = error instanceof Error ? error.message : String(error);
	return new NodeOperationError(node, message, { itemIndex });
}

// What a failed Decide item says about the error (pipeline/item-json.ts): written on the n8n error
// here, read only through the two functions below. The verdict itself is the client's
// (src/client/retry.ts, `mayHaveBeenCharged`); this only carries it across n8n's error class.
const CHARGED = 'mayHaveBeenCharged';
const SERVICE_CODE = 'serviceCode';

function markCharge<E extends NodeApiError | NodeOperationError>(error: E, charged: boolean): E {
	error.context[CHARGED] = charged;
	return error;
}

/** Whether the request behind an error may have been charged: a client error or one toNodeError made. */
export function mayHaveBeenCharged(error: unknown): boolean {
	if (error instanceof DecisionServiceError) return error.mayHaveBeenCharged;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		return error.context[CHARGED] === true;
	}
	return false;
}

/** The service's error code behind an error (`quota_exceeded`…), when it had one. */
export function serviceCodeOf(error: unknown): string | undefined {
	if (error instanceof DecisionServiceError) return error.code;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		const code = error.context[SERVICE_CODE];
		return typeof code === 'string' ? code : undefined;
	}
	return undefined;
}
