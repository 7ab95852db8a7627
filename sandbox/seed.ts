import type {
	ContextFieldInput,
	CreateFromDefinition,
	DecisionType,
	Locale,
} from '../src/contract';
import type { PiiMode, PlanName } from './plans';

/** Demo API keys, one account per plan; `revoked` is a revoked key of the Free account (always 401). */
export const DEMO_KEYS = {
	free: 'dsk_test_free_demo',
	starter: 'dsk_test_starter_demo',
	pro: 'dsk_test_pro_demo',
	scale: 'dsk_test_scale_demo',
	unlimited: 'dsk_test_unlimited_demo',
	revoked: 'dsk_test_revoked_demo',
} as const;

export interface SeedAccount {
	id: string;
	plan: PlanName;
	piiMode: PiiMode;
	keys: Array<{ key: string; revoked: boolean }>;
}

/** Strict PII mode is on for the demo Pro and Scale accounts (the plans where it is available). */
export const SEED_ACCOUNTS: readonly SeedAccount[] = [
	{
		id: 'acct_free',
		plan: 'free',
		piiMode: 'standard',
		keys: [
			{ key: DEMO_KEYS.free, revoked: false },
			{ key: DEMO_KEYS.revoked, revoked: true },
		],
	},
	{
		id: 'acct_starter',
		plan: 'starter',
		piiMode: 'standard',
		keys: [{ key: DEMO_KEYS.starter, revoked: false }],
	},
	{
		id: 'acct_pro',
		plan: 'pro',
		piiMode: 'strict',
		keys: [{ key: DEMO_KEYS.pro, revoked: false }],
	},
	{
		id: 'acct_scale',
		plan: 'scale',
		piiMode: 'strict',
		keys: [{ key: DEMO_KEYS.scale, revoked: false }],
	},
	{
		id: 'acct_unlimited',
		plan: 'unlimited',
		piiMode: 'standard',
		keys: [{ key: DEMO_KEYS.unlimited, revoked: false }],
	},
];

// ---------------------------------------------------------------------------------------------
// Item texts shared by the templates and the demo decisions. The descriptions are what the jev
// engine matches inputs against, so they list the words a real input would use.

interface ItemText {
	key: string;
	description: string;
	threshold?: number;
}

const TICKET_OPTIONS: Record<Locale, ItemText[]> = {
	en: [
		{
			key: 'billing',
			description:
				'Invoices, bills, payments, charges and refunds: the customer was charged twice, billed the wrong amount, sees an unexpected fee on a credit card or bank statement, or asks for a receipt.',
		},
		{
			key: 'technical',
			description:
				'Bugs, errors, crashes and outages: the app or website is broken, slow, down or not working, an upload, sync, API or integration fails, an error message appears.',
		},
		{
			key: 'sales',
			description:
				'Buying and pricing before a purchase: a quote, a demo, plans for a team, volume licences, discounts, a trial, talking to a sales representative.',
		},
		{
			key: 'account',
			description:
				'Account access and settings: forgot or reset password, cannot log in or sign in, locked out, two-factor code, change the e-mail address or profile, add users, close or delete the account.',
		},
	],
	fr: [
		{
			key: 'billing',
			description:
				'Factures, paiements, prélèvements et remboursements : le client a été débité deux fois, facturé du mauvais montant, voit des frais inattendus sur sa carte ou son relevé, ou demande un reçu.',
		},
		{
			key: 'technical',
			description:
				"Bugs, erreurs, plantages et pannes : l'application ou le site ne fonctionne pas, est lent ou en panne, un envoi, une synchronisation, l'API ou une intégration échoue, un message d'erreur s'affiche.",
		},
		{
			key: 'sales',
			description:
				'Achat et tarifs avant un achat : un devis, une démo, des offres pour une équipe, des licences en volume, des remises, un essai, parler à un commercial.',
		},
		{
			key: 'account',
			description:
				"Accès et réglages du compte : mot de passe oublié ou à réinitialiser, impossible de se connecter, compte bloqué, code à deux facteurs, changer l'adresse e-mail ou le profil, ajouter des utilisateurs, fermer ou supprimer le compte.",
		},
	],
};

const LEAD_LEVELS: Record<Locale, ItemText[]> = {
	en: [
		{
			key: 'cold',
			description:
				'No need and no money: a student, a job seeker, a personal hobby project, just browsing, not interested, maybe next year, unsubscribe.',
		},
		{
			key: 'warm',
			description:
				'Curious and researching: reads the documentation, wants a newsletter, a white paper or a webinar, learning about the product.',
		},
		{
			key: 'hot',
			description:
				'A clear need and evaluating vendors: compares tools, asks about pricing, a free trial or integrations, shortlist for a team.',
		},
		{
			key: 'sales-ready',
			description:
				'Ready to buy: budget approved, wants a contract, a quote or an invoice, asks to sign this week, purchase order, seats or licences for the whole company, urgent rollout.',
		},
	],
	fr: [
		{
			key: 'froid',
			description:
				'Ni besoin ni budget : un étudiant, un candidat, un projet personnel, simple curiosité, pas intéressé, désinscription.',
		},
		{
			key: 'tiède',
			description:
				'Curieux et en recherche : lit la documentation, veut une newsletter, un livre blanc ou un webinaire, peut-être plus tard, l’an prochain.',
		},
		{
			key: 'chaud',
			description:
				'Un besoin clair et des fournisseurs évalués : compare des outils, demande les tarifs, un essai gratuit ou des intégrations, une liste restreinte pour une équipe.',
		},
		{
			key: 'prêt à acheter',
			description:
				'Prêt à acheter maintenant : budget validé, veut un contrat, un devis ou une facture, veut signer cette semaine, bon de commande, déploiement urgent pour toute l’entreprise.',
		},
	],
};

const CONTENT_LABELS: Record<Locale, ItemText[]> = {
	en: [
		{
			key: 'spam',
			description:
				'Unsolicited bulk message or scam: phishing, click this link, you won a prize, lottery, free money, crypto giveaway, cheap pills.',
		},
		{
			key: 'promotion',
			description:
				'Advertising goods or a service: discount, sale, coupon, promo code, special offer, limited time deal, buy now.',
		},
		{
			key: 'question',
			description:
				'Asks a question: how, what, why, when, where or who, can you help, needs information, wonders whether something works?',
		},
		{
			key: 'complaint',
			description:
				'Complains about bad service or poor quality: unhappy, disappointed, angry, late delivery, broken product, wants compensation.',
		},
		{
			key: 'toxic',
			description:
				'Insults, hate, threats, harassment, abusive or obscene language: idiot, stupid, moron, shut up, kill.',
			threshold: 0.7,
		},
	],
	fr: [
		{
			key: 'spam',
			description:
				'Message de masse non sollicité ou arnaque : hameçonnage, cliquez sur ce lien, vous avez gagné un prix, loterie, argent gratuit, cryptomonnaie offerte.',
		},
		{
			key: 'promotion',
			description:
				'Publicité pour un produit ou un service : remise, soldes, bon de réduction, code promo, offre spéciale, offre limitée, achetez maintenant.',
		},
		{
			key: 'question',
			description:
				"Pose une question ou demande de l'aide ou des informations, se demande comment faire ?",
		},
		{
			key: 'complaint',
			description:
				'Se plaint d’un mauvais service ou d’une mauvaise qualité : mécontent, déçu, en colère, livraison en retard, produit cassé, veut un dédommagement.',
		},
		{
			key: 'toxic',
			description:
				'Insultes, haine, menaces, harcèlement, langage injurieux ou obscène : idiot, crétin, imbécile, tais-toi.',
			threshold: 0.7,
		},
	],
};

// ---------------------------------------------------------------------------------------------
// Template catalogue (GET /templates), texts in en and fr. Option and label keys are identifiers
// and stay the same in both locales; level labels are human names and are translated.

export interface TemplateText {
	name: string;
	description: string;
	use_case: string;
	instructions: string;
	context_description: string;
	items: ItemText[];
}

export interface TemplateDefinition {
	key: string;
	type: DecisionType;
	featured: boolean;
	fields: ContextFieldInput[];
	confidence_threshold?: number;
	text: Record<Locale, TemplateText>;
}

const TEXT_FIELD: ContextFieldInput[] = [{ name: 'text', type: 'string', required: true }];

export const TEMPLATES: readonly TemplateDefinition[] = [
	{
		key: 'support-ticket-routing',
		type: 'route',
		featured: true,
		fields: [
			{ name: 'subject', type: 'string', required: true },
			{ name: 'body', type: 'string', required: true },
		],
		text: {
			en: {
				name: 'Support ticket routing',
				description: 'Sends each support ticket to the team that should handle it.',
				use_case: 'Helpdesk inboxes, contact forms and shared support mailboxes.',
				instructions: 'Which team should handle this support ticket?',
				context_description: 'A support ticket: its subject and body.',
				items: TICKET_OPTIONS.en,
			},
			fr: {
				name: 'Routage des tickets de support',
				description: 'Envoie chaque ticket de support au service qui doit le traiter.',
				use_case: 'Boîtes de support, formulaires de contact et adresses e-mail partagées.',
				instructions: 'Quel service doit traiter ce ticket de support ?',
				context_description: 'Un ticket de support : son objet et son texte.',
				items: TICKET_OPTIONS.fr,
			},
		},
	},
	{
		key: 'lead-scoring',
		type: 'score',
		featured: true,
		fields: [
			{ name: 'company', type: 'string' },
			{ name: 'role', type: 'string' },
			{ name: 'message', type: 'string', required: true },
		],
		text: {
			en: {
				name: 'Lead scoring',
				description: 'Rates how ready an inbound lead is to buy, from cold to sales-ready.',
				use_case: 'Contact and demo request forms, CRM enrichment, sales prioritisation.',
				instructions: 'How ready to buy is this lead?',
				context_description: 'An inbound lead: company, role and message.',
				items: LEAD_LEVELS.en,
			},
			fr: {
				name: 'Qualification des prospects',
				description: 'Évalue la maturité d’achat d’un prospect entrant, de froid à prêt à acheter.',
				use_case:
					'Formulaires de contact et de démo, enrichissement du CRM, priorisation commerciale.',
				instructions: 'Ce prospect est-il prêt à acheter ?',
				context_description: 'Un prospect entrant : entreprise, fonction et message.',
				items: LEAD_LEVELS.fr,
			},
		},
	},
	{
		key: 'content-moderation',
		type: 'classify',
		featured: true,
		fields: TEXT_FIELD,
		text: {
			en: {
				name: 'Content moderation',
				description: 'Labels user messages as spam, promotion, question, complaint or toxic.',
				use_case: 'Comments, community posts, reviews and chat messages.',
				instructions: 'Which of these labels apply to the message?',
				context_description: 'A message written by a user.',
				items: CONTENT_LABELS.en,
			},
			fr: {
				name: 'Modération de contenu',
				description:
					'Étiquette les messages comme spam, promotion, question, réclamation ou toxique.',
				use_case: 'Commentaires, publications de communauté, avis et messages de chat.',
				instructions: 'Quelles étiquettes s’appliquent à ce message ?',
				context_description: 'Un message écrit par un utilisateur.',
				items: CONTENT_LABELS.fr,
			},
		},
	},
	{
		key: 'sentiment',
		type: 'score',
		featured: false,
		fields: TEXT_FIELD,
		text: {
			en: {
				name: 'Sentiment',
				description: 'Places a message on a five-step scale from very negative to very positive.',
				use_case: 'Reviews, survey answers, social mentions and NPS comments.',
				instructions: 'How positive is the tone of this message?',
				context_description: 'A review or comment.',
				items: [
					{
						key: 'very negative',
						description: 'Furious, hate it, terrible, awful, worst ever, never again, scam.',
					},
					{
						key: 'negative',
						description: 'Disappointed, unhappy, bad, poor, slow, annoying, would not recommend.',
					},
					{
						key: 'neutral',
						description: 'Factual, neither good nor bad, okay, average, fine, no opinion.',
					},
					{
						key: 'positive',
						description: 'Good, nice, happy, helpful, pleased, works well, recommend.',
					},
					{
						key: 'very positive',
						description: 'Excellent, amazing, love it, perfect, fantastic, best ever, delighted.',
					},
				],
			},
			fr: {
				name: 'Analyse du sentiment',
				description:
					'Place un message sur une échelle de cinq crans, de très négatif à très positif.',
				use_case: 'Avis, réponses d’enquête, mentions sociales et commentaires NPS.',
				instructions: 'Quel est le ton de ce message ?',
				context_description: 'Un avis ou un commentaire.',
				items: [
					{
						key: 'très négatif',
						description: 'Furieux, déteste, horrible, nul, le pire, plus jamais, arnaque.',
					},
					{
						key: 'négatif',
						description: 'Déçu, mécontent, mauvais, lent, pénible, ne recommande pas.',
					},
					{ key: 'neutre', description: 'Factuel, ni bon ni mauvais, correct, moyen, sans avis.' },
					{
						key: 'positif',
						description: 'Bien, content, utile, satisfait, fonctionne bien, recommande.',
					},
					{
						key: 'très positif',
						description: 'Excellent, génial, adore, parfait, fantastique, le meilleur, ravi.',
					},
				],
			},
		},
	},
	{
		key: 'urgency',
		type: 'score',
		featured: false,
		fields: TEXT_FIELD,
		text: {
			en: {
				name: 'Urgency',
				description: 'Rates how urgently a request needs attention: low, normal, high or critical.',
				use_case: 'Incident intake, on-call paging, operations inboxes.',
				instructions: 'How urgent is this request?',
				context_description: 'An incoming request or incident report.',
				items: [
					{
						key: 'low',
						description: 'Nice to have, whenever you can, no rush, cosmetic, suggestion.',
					},
					{
						key: 'normal',
						description: 'Usual request, this week, a question, minor issue with a workaround.',
					},
					{
						key: 'high',
						description: 'Blocking a team, today, important customer affected, deadline soon.',
					},
					{
						key: 'critical',
						description:
							'Outage, production down, data loss, security breach, all customers affected, immediately.',
					},
				],
			},
			fr: {
				name: 'Urgence',
				description: 'Évalue l’urgence d’une demande : faible, normale, haute ou critique.',
				use_case: 'Déclaration d’incidents, astreinte, boîtes des opérations.',
				instructions: 'Quelle est l’urgence de cette demande ?',
				context_description: 'Une demande entrante ou un signalement d’incident.',
				items: [
					{
						key: 'faible',
						description: 'Confort, quand vous pourrez, pas pressé, cosmétique, suggestion.',
					},
					{
						key: 'normale',
						description:
							'Demande habituelle, cette semaine, une question, problème mineur contournable.',
					},
					{
						key: 'haute',
						description:
							'Bloque une équipe, aujourd’hui, client important touché, échéance proche.',
					},
					{
						key: 'critique',
						description:
							'Panne, production arrêtée, perte de données, faille de sécurité, tous les clients touchés, immédiatement.',
					},
				],
			},
		},
	},
	{
		key: 'email-triage',
		type: 'route',
		featured: false,
		fields: [
			{ name: 'from', type: 'string', pii: true },
			{ name: 'subject', type: 'string' },
			{ name: 'body', type: 'string', required: true },
		],
		text: {
			en: {
				name: 'E-mail triage',
				description:
					'Decides what to do with an incoming e-mail: reply, forward, archive or escalate.',
				use_case: 'Shared inboxes, assistants, first-line triage.',
				instructions: 'What should be done with this e-mail?',
				context_description: 'An incoming e-mail.',
				items: [
					{
						key: 'reply',
						description: 'A direct question or request that needs an answer from us.',
					},
					{
						key: 'forward',
						description:
							'Meant for another department or person, wrong recipient, please pass it on.',
					},
					{
						key: 'archive',
						description: 'Newsletter, notification, receipt, automatic message, no action needed.',
					},
					{
						key: 'escalate',
						description: 'Legal threat, angry important customer, lawyer, press, manager must act.',
					},
				],
			},
			fr: {
				name: 'Tri des e-mails',
				description:
					'Décide quoi faire d’un e-mail entrant : répondre, transférer, archiver ou remonter.',
				use_case: 'Boîtes partagées, assistants, premier niveau de tri.',
				instructions: 'Que faut-il faire de cet e-mail ?',
				context_description: 'Un e-mail entrant.',
				items: [
					{
						key: 'reply',
						description: 'Une question ou une demande directe qui attend notre réponse.',
					},
					{
						key: 'forward',
						description:
							'Destiné à un autre service ou une autre personne, mauvais destinataire, à transmettre.',
					},
					{
						key: 'archive',
						description: 'Newsletter, notification, reçu, message automatique, aucune action.',
					},
					{
						key: 'escalate',
						description:
							'Menace juridique, client important en colère, avocat, presse, un responsable doit agir.',
					},
				],
			},
		},
	},
	{
		key: 'intent-detection',
		type: 'classify',
		featured: false,
		fields: TEXT_FIELD,
		text: {
			en: {
				name: 'Customer intent',
				description:
					'Detects every intent in a customer message: cancel, upgrade, refund, bug report, feature request.',
				use_case: 'Chatbots, support inboxes, churn prevention.',
				instructions: 'Which intents does this customer message express?',
				context_description: 'A customer message.',
				items: [
					{
						key: 'cancel',
						description: 'Wants to cancel, stop, terminate or not renew the subscription.',
					},
					{
						key: 'upgrade',
						description: 'Wants a bigger plan, more seats, more features, upgrade.',
					},
					{
						key: 'refund',
						description: 'Wants money back, a refund, reimbursement or a credit note.',
					},
					{ key: 'bug-report', description: 'Reports a bug, error, crash or something broken.' },
					{
						key: 'feature-request',
						description: 'Suggests or requests a new feature, improvement, would be nice if.',
					},
				],
			},
			fr: {
				name: 'Intention client',
				description:
					'Détecte chaque intention d’un message client : résiliation, montée en gamme, remboursement, bug, demande de fonctionnalité.',
				use_case: 'Chatbots, boîtes de support, prévention de l’attrition.',
				instructions: 'Quelles intentions exprime ce message client ?',
				context_description: 'Un message client.',
				items: [
					{
						key: 'cancel',
						description: 'Veut résilier, arrêter ou ne pas renouveler l’abonnement.',
					},
					{
						key: 'upgrade',
						description: 'Veut une offre supérieure, plus de licences, plus de fonctionnalités.',
					},
					{ key: 'refund', description: 'Veut être remboursé, un remboursement ou un avoir.' },
					{
						key: 'bug-report',
						description: 'Signale un bug, une erreur, un plantage ou quelque chose de cassé.',
					},
					{
						key: 'feature-request',
						description: 'Suggère ou demande une nouvelle fonctionnalité, une amélioration.',
					},
				],
			},
		},
	},
	{
		key: 'invoice-approval',
		type: 'route',
		featured: false,
		fields: [
			{ name: 'supplier', type: 'string' },
			{ name: 'amount', type: 'number', required: true },
			{ name: 'description', type: 'string' },
		],
		text: {
			en: {
				name: 'Invoice approval',
				description: 'Approves, rejects or sends a supplier invoice to manual review.',
				use_case: 'Accounts payable automation.',
				instructions: 'Should this supplier invoice be approved?',
				context_description: 'A supplier invoice: supplier, amount and description.',
				items: [
					{
						key: 'approve',
						description: 'Known supplier, expected recurring amount, matches the purchase order.',
					},
					{
						key: 'review',
						description: 'Unusual amount, new supplier, missing purchase order, needs a check.',
					},
					{
						key: 'reject',
						description: 'Duplicate, already paid, fraud, wrong company, not ordered.',
					},
				],
			},
			fr: {
				name: 'Validation des factures',
				description: 'Valide, rejette ou envoie en revue manuelle une facture fournisseur.',
				use_case: 'Automatisation de la comptabilité fournisseurs.',
				instructions: 'Faut-il valider cette facture fournisseur ?',
				context_description: 'Une facture fournisseur : fournisseur, montant et description.',
				items: [
					{
						key: 'approve',
						description:
							'Fournisseur connu, montant récurrent attendu, conforme au bon de commande.',
					},
					{
						key: 'review',
						description:
							'Montant inhabituel, nouveau fournisseur, bon de commande manquant, à vérifier.',
					},
					{
						key: 'reject',
						description: 'Doublon, déjà payée, fraude, mauvaise société, non commandée.',
					},
				],
			},
		},
	},
];

// ---------------------------------------------------------------------------------------------
// Demo decisions, created in every account at seed time through the same validation as
// POST /decisions. The Free account therefore starts with exactly 3 live decisions.

export const SEED_DECISIONS: readonly CreateFromDefinition[] = [
	{
		name: 'Ticket routing',
		slug: 'ticket-routing',
		description: 'Routes support tickets to billing, technical, sales or account.',
		type: 'route',
		instructions: 'Which team should handle this support ticket?',
		context: {
			description: 'A support ticket from the helpdesk.',
			fields: [
				{
					name: 'subject',
					type: 'string',
					required: true,
					description: 'Subject line of the ticket',
				},
				{ name: 'body', type: 'string', required: true, description: 'Text of the ticket' },
				{ name: 'customer_email', type: 'string', pii: true, description: 'Who wrote the ticket' },
				{ name: 'plan', type: 'string', description: 'Plan of the customer' },
			],
			example: {
				subject: 'Charged twice',
				body: 'I was charged twice on my invoice this month.',
				customer_email: 'jane@example.com',
				plan: 'starter',
			},
		},
		options: TICKET_OPTIONS.en,
		confidence_threshold: 0.6,
		uncertainty_policy: 'human_review',
	},
	{
		name: 'Lead scoring',
		slug: 'lead-scoring',
		description: 'Scores inbound leads from cold to sales-ready.',
		type: 'score',
		instructions: 'How ready to buy is this lead?',
		context: {
			description: 'An inbound lead from the website contact form.',
			fields: [
				{ name: 'company', type: 'string' },
				{ name: 'role', type: 'string' },
				{ name: 'message', type: 'string', required: true },
				{ name: 'employees', type: 'number', description: 'Company size' },
			],
			example: {
				company: 'Acme',
				role: 'Head of Operations',
				message: 'Our budget is approved, please send a contract so we can sign this week.',
				employees: 250,
			},
		},
		levels: LEAD_LEVELS.en.map((item) => ({ label: item.key, description: item.description })),
		confidence_threshold: 0.6,
	},
	{
		name: 'Content labels',
		slug: 'content-labels',
		description: 'Labels user messages: spam, promotion, question, complaint, toxic.',
		type: 'classify',
		instructions: 'Which of these labels apply to the message?',
		context: {
			description: 'A message posted by a user.',
			fields: [{ name: 'text', type: 'string', required: true }],
			example: { text: 'Limited time offer: use promo code SAVE20 for a discount!' },
		},
		labels: CONTENT_LABELS.en,
		confidence_threshold: 0.5,
	},
];
