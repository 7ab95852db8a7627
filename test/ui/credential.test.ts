/**
 * n8n's own address typed as the credential's Base URL, in n8n's editor in a real browser
 * (Debian's chromium driven by playwright-core), real n8n (the pinned 2.x) with this package from
 * its packed tarball and the sandbox credential.
 *
 * The owner opens the credential and types n8n's address (no /v1) as the Base URL, then saves:
 *  - the Test says that address is not the Decision Service API's, and its example is a neutral
 *    address or the sandbox's default, never n8n's address plus /v1 (before: "must end with the
 *    API version /v1, e.g. http://127.0.0.1:<n8n's port>/v1", another address that is not the API);
 *  - n8n saves the credential anyway: a credential type cannot refuse to be saved
 *    (docs/what-happens-when.md, "The credential's Test"). Checked here so that a later n8n that
 *    lets it refuse is noticed.
 *
 * Screenshot: credential-base-url-not-the-api (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
 */
import type { Page } from 'playwright-core';
import { CREDENTIAL_ID, signIn } from '../../harness/n8n-env';
import {
	Editor,
	UI_TIMEOUT,
	eventually,
	startEditorRig,
	stepsOn,
	type EditorRig,
} from '../../harness/n8n-editor';

jest.setTimeout(600_000);

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
const { step, failed, fail } = stepsOn(() => page);

/** The credential's data as n8n stored it (the key stays redacted; only the Base URL is read). */
async function storedBaseUrl(): Promise<unknown> {
	const cookie = await signIn(rig!.n8n.url);
	const response = await fetch(
		`${rig!.n8n.url}/rest/credentials/${CREDENTIAL_ID}?includeData=true`,
		{ headers: { cookie, 'browser-id': 'decision-service-setup' } },
	);
	if (!response.ok) throw new Error(`reading the credential answered ${response.status}`);
	const { data } = (await response.json()) as { data: { data?: { baseUrl?: unknown } } };
	return data.data?.baseUrl;
}

beforeAll(async () => {
	try {
		rig = await startEditorRig({ name: 'credential' });
		({ page, ui } = rig);
	} catch (error) {
		fail();
		throw error;
	}
});

afterAll(async () => {
	await rig?.stop(failed() ? 'Credential test' : undefined);
});

describe("n8n's own address as the Base URL, in the n8n editor (real browser)", () => {
	step('signs in and opens the credential', async () => {
		await ui.signIn(rig!.n8n.url);
		await ui.keepDialogs();
		await page.goto(`${rig!.n8n.url}/home/credentials/${CREDENTIAL_ID}`);
		await page.getByTestId('editCredential-modal').waitFor({ timeout: UI_TIMEOUT });
	});

	step(
		"the Test says the address is not the API's, with an example that is not n8n's",
		async () => {
			const modal = page.getByTestId('editCredential-modal');
			const n8nAddress = rig!.n8n.url.replace(/\/+$/, '');
			// n8n tests a saved credential when its modal opens and redraws the form with the result;
			// a value typed before that redraw can be lost (seen on a loaded machine): wait for it,
			// then type, and read the field back before saving.
			await eventually(
				() => modal.innerText(),
				(text) => expect(text).toContain('Connection tested successfully'),
			);
			const baseUrl = modal.getByTestId('parameter-input-baseUrl').locator('input');
			await baseUrl.fill(n8nAddress);
			await eventually(
				() => baseUrl.inputValue(),
				(value) => expect(value).toBe(n8nAddress),
			);
			const tested = page.waitForResponse(
				(response) =>
					response.request().method() === 'POST' &&
					response.url().includes('/rest/credentials/test'),
			);
			await modal.getByTestId('credential-save-button').click();
			await tested;
			await eventually(
				() => modal.innerText(),
				(text) => expect(text).toContain('Couldn’t connect with these settings'),
			);
			// n8n folds a long message behind "More details".
			const details = modal.getByText('More details');
			if (await details.isVisible()) await details.click();
			const text = await eventually(
				() => modal.innerText(),
				(shown) =>
					expect(shown).toContain(`${n8nAddress} is not the Decision Service API's address`),
			);
			expect(text).toContain('https://api.example.com/v1');
			expect(text).toContain('http://127.0.0.1:8787/v1');
			expect(text).not.toContain(`${n8nAddress}/v1`);
			await ui.screenshot('credential-base-url-not-the-api');
		},
	);

	step('n8n saved the credential anyway: a credential type cannot refuse it', async () => {
		await eventually(
			() => storedBaseUrl(),
			(stored) => expect(stored).toBe(rig!.n8n.url.replace(/\/+$/, '')),
		);
	});
});
