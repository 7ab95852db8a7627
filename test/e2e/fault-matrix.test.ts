/**
 * Smoke test of the fault-matrix driver in real n8n (packed tarball, one n8n process for the
 * batch): a run without faults and a run with one redirect to another origin. It asserts only
 * the counts that hold before and after the client's redirect fix (the redirect case uses the
 * error output, so the redirected item has somewhere to go either way); the matrix's own
 * assertions belong with that fix.
 */
import {
	formatMatrixReport,
	startFaultMatrix,
	type FaultMatrix,
	type MatrixReport,
} from '../../harness/fault-matrix';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

jest.setTimeout(300_000);

let sb: TestSandbox;
let matrix: FaultMatrix;
let report: MatrixReport;

beforeAll(async () => {
	sb = await startTestSandbox();
	matrix = await startFaultMatrix({ sandbox: sb });
	report = await matrix.run([
		{ name: 'no fault', script: [] },
		{
			name: '307 to another origin on the 3rd decide',
			onError: 'errorOutput',
			script: [
				{
					method: 'POST',
					path: '^/v1/decide/',
					nth: [3],
					fault: { kind: 'redirect', status: 307, to: 'canary' },
				},
			],
		},
	]);
	// The figures, for whoever reads the test log.
	console.log(formatMatrixReport(report));
});

afterAll(async () => {
	await matrix?.close();
	await sb?.close();
});

it('without faults: every item routed once, each decide sent, forwarded and charged once', () => {
	const [clean] = report.cases;
	expect(clean.workflowError).toBeUndefined();
	expect(clean.itemsIn).toBe(24);
	expect(clean.outputs).toEqual({
		billing: 6,
		technical: 6,
		sales: 6,
		account: 6,
		Uncertain: 0,
		'Pending Review': 0,
		Other: 0,
	});
	expect(clean.itemsOut).toBe(24);
	expect(clean.charged).toBe(24);
	expect(clean.decideRequests).toEqual({
		received: 24,
		forwarded: 24,
		lostAfterAnswer: 0,
		altered: 0,
	});
	expect(clean.canary.hits).toBe(0);
});

it('one redirect: no item lost, the redirected decide never reached the sandbox, the others were charged once', () => {
	const redirected = report.cases[1];
	expect(redirected.faults).toEqual({ redirect: 1 });
	expect(redirected.itemsIn).toBe(24);
	expect(redirected.itemsOut).toBe(24);
	expect(redirected.decideRequests).toMatchObject({
		received: 24,
		forwarded: 23,
		lostAfterAnswer: 0,
	});
	expect(redirected.charged).toBe(23);
});

it('the sandbox charged exactly what the proxy saw it answer; no key in the report', () => {
	expect(report.usageDelta).toBe(report.chargedTotal);
	expect(JSON.stringify(report)).not.toContain(DEMO_KEYS.scale);
});
