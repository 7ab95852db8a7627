import * as z from 'zod/v4/mini';
import { en } from 'zod/v4/locales';

// zod/v4/mini loads no messages (every issue would read "Invalid input"); the English locale gives
// the messages the client's errors and the sandbox's 400 details quote, as classic zod does.
z.config(en());
