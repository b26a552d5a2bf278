/** The message box's element id: the skip link and the sidebar point at it. */
export const COMPOSER_INPUT_ID = 'composer-input';
