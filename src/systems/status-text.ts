/** Reason phrases (RFC 9110 §15) for the statuses the modelled systems send. */
export const STATUS_TEXTS: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  403: 'Forbidden',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
