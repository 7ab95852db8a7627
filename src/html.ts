// What every HTML page the package renders shares (the evaluation report, the review pages): one
// escape for text taken from data. Keys, labels, field values and titles are untrusted
// (`<script>`, quotes, `constructor`); each is escaped where it enters the markup.

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');
}
