/**
 * The AI-tool description (toolDescriptionOf, pipeline/tool-description.ts) never names answers the called
 * decision does not have: the Answers list saved in `routes` carries the slug it was loaded for
 * (its hidden entry `__meta_decision__`), and a list saved for another decision, or a decision
 * given as an expression, leaves the description with the decision's name only. Evaluated through
 * n8n's own expression engine, as n8n builds the tool.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import { toolDescriptionOf } from '../../nodes/DecisionService/pipeline/tool-description';
import { HIDDEN_ENTRY, freshOutputsList } from '../../nodes/DecisionService/outputs/list';
import { evaluateOnNode } from '../../harness/n8n-expressions';

const TICKET_ROUTING = freshOutputsList({
	slug: 'ticket-routing',
	type: 'route',
	instructions: 'Which team should handle this support ticket?',
	options: ['billing', 'technical', 'sales', 'account'],
});
const LEAD_SCORING = freshOutputsList({
	slug: 'lead-scoring',
	type: 'score',
	instructions: 'How ready to buy is this lead?',
	levels: ['cold', 'warm', 'hot', 'sales-ready'],
});

const RETURNS =
	' Returns JSON: the answer (choice; or level and score; or labels), status (ok, uncertain, or pending: sent to human review, see review_url), confidence from 0 to 1, and run_id. On failure it returns an error text that says what to do.';

/** The tool node's parameters: this decision, this saved Answers list. */
function toolParameters(decision: unknown, schema: ResourceMapperField[]): INodeParameters {
	return {
		resource: 'decision',
		operation: 'decide',
		decision,
		routes: { mappingMode: 'defineBelow', value: {}, schema },
	} as unknown as INodeParameters;
}

const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

/** As n8n builds the tool: the description's expression, on the node, by n8n's engine. */
const describe_ = (parameters: INodeParameters) =>
	evaluateOnNode(parameters, `={{(${toolDescriptionOf})($parameter)}}`);

describe('toolDescriptionOf and the decision the Answers list was loaded for', () => {
	it('names the answers of the list loaded for the decision the tool calls', () => {
		expect(describe_(toolParameters(fromList('lead-scoring'), LEAD_SCORING))).toBe(
			'Asks the Decision Service decision "lead-scoring": How ready to buy is this lead? It scores on levels, lowest first: cold, warm, hot, sales-ready.' +
				RETURNS,
		);
	});

	it('names none of the answers of a list saved for another decision (the decision was switched)', () => {
		// The editor kept ticket-routing's list after the decision became lead-scoring.
		const text = describe_(toolParameters(fromList('lead-scoring'), TICKET_ROUTING));
		expect(text).toBe('Asks the Decision Service decision "lead-scoring".' + RETURNS);
		for (const stale of ['billing', 'technical', 'sales', 'account', 'support ticket'])
			expect(text).not.toContain(stale);
	});

	it('compares the slug as picked by ID or URL too, spaces around it ignored', () => {
		expect(
			describe_(
				toolParameters({ __rl: true, mode: 'id', value: ' ticket-routing ' }, TICKET_ROUTING),
			),
		).toContain('It picks one option: billing, technical, sales, account.');
		expect(
			describe_(toolParameters({ __rl: true, mode: 'id', value: 'lead-scoring' }, TICKET_ROUTING)),
		).not.toContain('billing');
	});

	it('names no answers when no decision is picked but a list is saved', () => {
		expect(describe_(toolParameters(fromList(''), TICKET_ROUTING))).toBe(
			'Asks the Decision Service decision a Decision Service decision.' + RETURNS,
		);
	});

	it('names no stale answers when the decision is an expression', () => {
		// Through n8n, $parameter hands the expression's value: compared like any slug.
		const resolved = String(
			describe_(toolParameters(fromList("={{ 'lead-scoring' }}"), TICKET_ROUTING)),
		);
		expect(resolved).toBe('Asks the Decision Service decision "lead-scoring".' + RETURNS);
		// Read unresolved (the saved parameters as they are), it names no decision and no answers.
		const raw = toolDescriptionOf(
			toolParameters(fromList('={{ $json.decision }}'), TICKET_ROUTING),
		);
		expect(raw).toBe('Asks the Decision Service decision a Decision Service decision.' + RETURNS);
	});

	it('trusts a list saved before it carried the slug (no hidden decision entry)', () => {
		const old = TICKET_ROUTING.filter((field) => field.id !== HIDDEN_ENTRY.decision);
		expect(describe_(toolParameters(fromList('ticket-routing'), old))).toContain(
			'It picks one option: billing, technical, sales, account.',
		);
	});

	it("is the node's own default for the tool's Description", () => {
		const property = new DecisionService().description.properties.find(
			(each) => each.name === 'toolDescription' && each.type === 'hidden',
		);
		expect(property?.default).toBe(`={{(${toolDescriptionOf})($parameter)}}`);
		expect(String(toolDescriptionOf)).toMatch(new RegExp(`['"]${HIDDEN_ENTRY.decision}['"]`));
	});
});
