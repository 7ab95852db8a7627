import { linkMessage } from '../../nodes/DecisionService/actions/decision/review/execute';

// What Review posts to Send Link To (issue 30, point 12): a chat webhook's `{ text }`, or the text
// with details for an n8n Webhook node. Posted for real, in real n8n: test/e2e/review.test.ts.

const message = {
	link: 'http://127.0.0.1:5678/webhook-waiting/12?signature=abc',
	items: 4,
	title: 'Review: Ticket routing',
	until: new Date('2026-11-30T14:05:30.000Z'),
	execution: '12',
};

describe('the message Review posts with its link', () => {
	it('a chat webhook gets only the text, the link at its end', () => {
		expect(linkMessage('text', message)).toEqual({
			text: 'Review: Ticket routing: 4 items need a person’s answer, until 2026-11-30 14:05 UTC. http://127.0.0.1:5678/webhook-waiting/12?signature=abc',
		});
	});

	it('one item is one item', () => {
		expect(linkMessage('text', { ...message, items: 1 }).text).toContain('1 item needs');
	});

	it('an n8n Webhook gets the text and each detail on its own', () => {
		expect(linkMessage('details', message)).toEqual({
			text: expect.stringContaining(message.link),
			link: message.link,
			items: 4,
			title: 'Review: Ticket routing',
			until: '2026-11-30T14:05:30.000Z',
			execution: '12',
		});
	});
});
