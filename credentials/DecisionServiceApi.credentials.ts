import type {
	IAuthenticateRuleResponseCode,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';
import { ApplicationError } from 'n8n-workflow';
import { checkBaseUrl } from '../src/client/base-url';

export class DecisionServiceApi implements ICredentialType {
	name = 'decisionServiceApi';

	displayName = 'Decision Service API';

	icon: Icon = {
		light: 'file:../nodes/DecisionService/decisionService.svg',
		dark: 'file:../nodes/DecisionService/decisionService.dark.svg',
	};

	documentationUrl = 'https://github.com/decision-service/n8n-nodes-decision-service#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			hint: 'Created in the Decision Service app under Settings → API keys; it is shown once, when it is created. Keys with _test_ in them are test keys, keys with _live_ are live keys.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com/v1',
			hint: "The API's address, ending with its version, /v1, over https:// (plain http only for localhost or 127.0.0.1). If the Test says ECONNREFUSED, nothing answers at that host and port: check the address, and that the service runs there.",
		},
	];

	// A function rather than n8n's declarative form: n8n would evaluate the `=Bearer {{…}}`
	// expression again for every request, which is most of the per-item cost of a large run.
	// The base URL is checked here too, so the credential's Test says what is wrong with it.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const checked = checkBaseUrl(credentials.baseUrl);
		if (!checked.ok) throw new ApplicationError(checked.problem);
		return {
			...requestOptions,
			headers: {
				...(requestOptions.headers ?? {}),
				Authorization: `Bearer ${String(credentials.apiKey ?? '').trim()}`,
			},
		};
	}

	// n8n's Test would otherwise follow a redirect with the key (and call the other origin's
	// answer a success), say only "Unauthorized" or "Not Found", and pass on any 200, an HTML
	// page included. n8n reports a refused connection by its code alone (ECONNREFUSED): the
	// Base URL's hint says what it means (docs/what-happens-when.md).
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			url: '/decisions',
			method: 'GET',
			disableFollowRedirect: true,
		},
		// n8n's type takes one kind of rule per list, while its tester reads each rule by its own
		// type (credentials-tester.service.js): both kinds are needed here, hence the cast.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The Decision Service refused the API key (401): check that it is complete, not revoked, and meant for this Base URL.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Decision Service API answers at this Base URL (404): check the address; it ends with the API version, /v1.',
				},
			},
			// n8n fails the Test when the body's `decisions` equals `value`: a page that is not the
			// API's list (HTML, another API's JSON) has none.
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'decisions',
					value: undefined,
					message:
						"Something answered at this Base URL, but not the Decision Service API: its answer to GET /decisions is not a list of decisions (a web page?). Use the API's address, ending with the API version, /v1.",
				},
			},
			...[301, 302, 303, 307, 308].map((status) => ({
				type: 'responseCode' as const,
				properties: {
					value: status,
					message: `The Base URL answered with a redirect (${status}). It is not followed, so the key is not sent elsewhere: use the API's own address, ending with /v1.`,
				},
			})),
		] as IAuthenticateRuleResponseCode[],
	};
}
