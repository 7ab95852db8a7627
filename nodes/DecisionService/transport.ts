import { createHash } from 'crypto';
import {
	NodeOperationError,
	sleep,
	type IExecuteFunctions,
	type ICredentialsDecrypted,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';
import {
	DecisionClient,
	checkBaseUrl,
	TransportError,
	classifyTransportCode,
	flattenHeaders,
	type DecisionClientOptions,
	type Transport,
} from '../../src/client';

export const CREDENTIAL_TYPE = 'decisionServiceApi';

interface DecisionServiceCredentials {
	apiKey: string;
	baseUrl: string;
	[key: string]: string;
}

type N8nFunctions = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

interface FullResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** The first system error code (ECONNREFUSED, ETIMEDOUT…) found on an error or its causes. */
function systemCodeOf(error: unknown, depth = 0): string | undefined {
	if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
	const record = error as Record<string, unknown>;
	// Digits too: TLS codes such as ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION (a handshake that failed,
	// so nothing was sent) must reach classifyTransportCode, not be read as a reset.
	if (typeof record.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(record.code)) return record.code;
	for (const key of ['cause', 'errorResponse', 'error', 'reason']) {
		const code = systemCodeOf(record[key], depth + 1);
		if (code) return code;
	}
	return undefined;
}

/**
 * The client's transport on n8n's own HTTP helper, so n8n applies the credential, its proxy
 * settings and "Allowed HTTP Request Domains". Status codes come back as data, never thrown:
 * the client decides what each one means. A failure without an answer propagates as n8n threw
 * it; describeTransportError tells the client what kind it was.
 */
function n8nTransport(n8n: N8nFunctions, credentials: DecisionServiceCredentials): Transport {
	// Handed to n8n with every request so it does not load and decrypt the credential again each
	// time (one lookup per execution instead of one per item).
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: n8n.getNode().credentials?.[CREDENTIAL_TYPE]?.id ?? CREDENTIAL_TYPE,
		name: CREDENTIAL_TYPE,
		type: CREDENTIAL_TYPE,
		data: { ...credentials },
	};
	return async (request) => {
		const options: IHttpRequestOptions = {
			method: request.method,
			url: request.url,
			headers: request.headers,
			body: request.body,
			json: false,
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: request.timeoutMs,
			abortSignal: request.signal,
			// The API has no redirects; following one would hand the key and the input to another
			// origin (n8n re-adds the credential). A 3xx comes back as an answer the client refuses.
			disableFollowRedirect: true,
		};
		const response = (await n8n.helpers.httpRequestWithAuthentication.call(
			n8n,
			CREDENTIAL_TYPE,
			options,
			{ credentialsDecrypted },
		)) as FullResponse;
		const headers = flattenHeaders(response.headers ?? {});
		const body =
			typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
		return { status: response.statusCode, headers, body };
	};
}

/** Only the system code travels on: n8n's wrapped error may quote request options. */
function describeTransportError(error: unknown): TransportError {
	const code = systemCodeOf(error);
	return new TransportError(
		classifyTransportCode(code),
		`Connection failed (${code ?? 'unknown error'}).`,
		code,
	);
}

export type ClientSettings = Pick<
	DecisionClientOptions,
	'timeoutMs' | 'concurrency' | 'maxRateLimitWaitMs'
>;

/** A client for this node's credential. The rate gate is shared per base URL and key digest. */
export async function createDecisionClient(
	n8n: N8nFunctions,
	settings: ClientSettings = {},
): Promise<DecisionClient> {
	const credentials = await n8n.getCredentials<DecisionServiceCredentials>(CREDENTIAL_TYPE);
	const checked = checkBaseUrl(credentials.baseUrl);
	if (!checked.ok) {
		throw new NodeOperationError(n8n.getNode(), checked.problem, {
			description: 'Open the Decision Service credential and correct Base URL.',
		});
	}
	const baseUrl = checked.baseUrl;
	// A key pasted with a space or a newline around it is the same key.
	const apiKey = String(credentials.apiKey ?? '').trim();
	const keyDigest = createHash('sha256').update(apiKey).digest('hex');
	return new DecisionClient({
		baseUrl,
		transport: n8nTransport(n8n, credentials),
		describeTransportError,
		sleep,
		rateGateKey: `${baseUrl}|${keyDigest}`,
		secrets: [apiKey],
		...settings,
	});
}
