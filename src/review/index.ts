// The pure core of the Review operation: the page a person reviews items on, the
// pages after it, how a submission is read and the feedback each pick sends. No n8n, no I/O: the
// node waits, serves these pages on n8n's resume URL and sends the feedback.
export { agreedWith, feedbackFor } from './feedback';
export { fieldNames, NOTE_MAX_LENGTH, parseReviewSubmission } from './form';
export { renderReviewClosed, renderReviewDone } from './layout';
export { renderReviewPage, type ReviewPageOptions } from './page-html';
export type {
	DecisionType,
	ReviewAnswer,
	ReviewField,
	ReviewItem,
	ReviewPage,
	ReviewPick,
} from './types';
