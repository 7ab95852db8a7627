/**
 * docs/screenshots/evaluation-report.png: the 240 labeled tickets decided on the sandbox and
 * measured as the Evaluate operation does (src/evaluate), the HTML report opened in Chromium.
 * Run: npx tsx scripts/screenshot-report.ts
 */
import { readAnswer } from '../src/answer/item-answer';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ensureChromium } from '../harness/chromium';
import { DEMO_KEYS, startTestSandbox } from '../harness/sandbox';
import { evaluate, renderReport, type ScoredItem } from '../src/evaluate';
import { evaluationDecisionOf } from '../src/answer';
import { makeLabeledSet } from './make-labeled-set';

async function main(): Promise<void> {
	const sb = await startTestSandbox();
	try {
		// What the node does, through the same pure core (tsx cannot load the node class here).
		const client = sb.client(DEMO_KEYS.scale);
		const decision = await client.getDecision('ticket-routing');
		const items: ScoredItem[] = [];
		for (const ticket of makeLabeledSet()) {
			const run = await client.decide('ticket-routing', {
				subject: ticket.subject,
				body: ticket.body,
			});
			items.push({ expected: ticket.expected, run: readAnswer(run, decision.type)!, charged: 1 });
		}
		const { metrics } = evaluate(evaluationDecisionOf(decision), items, { targetAccuracy: 0.9 });
		const html = renderReport(metrics, {
			title: `Evaluation of ${decision.name}`,
			decision: decision.slug,
			generatedAt: new Date().toISOString(),
		});
		const browser = await chromium.launch({
			executablePath: ensureChromium(),
			args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
		});
		const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
		await page.setContent(html);
		const file = join(__dirname, '..', 'docs', 'screenshots', 'evaluation-report.png');
		await page.screenshot({ path: file, fullPage: true });
		await browser.close();
		console.log(`wrote ${file}`);
	} finally {
		await sb.close();
	}
}

void main();
