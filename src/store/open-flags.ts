import { constants } from 'node:fs';

/** Never open through a symbolic link; 0 where the platform lacks it (Windows, where links need rights users rarely have). */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO someone put in place of a file fails to open at once, instead of waiting for the other end. */
export const NONBLOCK = constants.O_NONBLOCK ?? 0;
