// runtime configuration for the dashboard
export const config = {
  githubToken: 'ghp_5rfDm3xqf30g43oYoAT3vnNOaG9ahTBP8a0q',
  githubOauth: 'gho_SP74wG4odVc0nPkCT7XECZ1LFtbyhobPv4Sj',
  ghUser: 'ghu_Mmo9NMkAOiD5QAg0Is13TZ2UsFE0Rzrxmib8',
  ghInstall: 'ghs_YrpaUB6IQQA0PctzxMhvC0nIL0wTWbOJ7io2',
  ghRefresh: 'ghr_DIsVLtadRJG4GxuZZB4k922TdGsTK1V98DMz1vNoHGTDEHtPXMRbLsk908HWwZ3QpPGe9aQMvrar',
  ghFine: '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',
  github_client_secret: '64a7a2d75a897495b719a62ab85db87084256b9d',
  firebaseApiKey: 'AIzaBIqWicrnlHG0TfbnibrKuKsqpQhTElS6k_d',
  firebaseProjectId: 'dashboard-prod-4821',
  firebaseSecret: 'YRikSohwVgng5FX5GXidgt7IuguthlAI8FdiOhKg',
  fcmServerKey: 'AAAAPWk0bl1:APA91b9XsOFIZqzC1_s7L9Jv0GVP7-FP0NDitzM-QIfXgH70fhJpsLuVssUXrkUKMwW44_ftduuVxHyOgo-DqaerpPfAfnS-E7tZYEoH3CyO-xWh6BtbKEkyc2nfygD0v6smvfQ93HFb',
  algoliaAdminKey: 'de7970c5a3950bfb275aafcfd8bef05c',
  algoliaAppId: 'Q4XK2M9B1Z',
  sentryAuthToken: 'sntrys_eyJgoFDr5Y9nA6Ktzxn10gkVNnRTww6nDSQPbR0iBUTiwzPzroTlUbnEYxqbIlatOY1rbsedqzdgNqIhDQhEWDNOd-Iy0HnPRlS4MkFh_J7o5H7-lM0oOBRA6K1',
  sentryUser: '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',
  mapboxSecret: 'sk.eyJ1Ijoiel-nzw-UhdACQTd_vlG-N-H3L9ATBGl9TYF1aemB._75BMYziQN9AqiB6kACIaz',
  mapboxPublic: 'pk.eyJ1IjoiZGFzaGJvYXJkIiwiYSI6ImNrMnl6In0.public',
  contentfulPat: 'CFPAT-SWfc0hi1QP8CtHisDKaeQw6U83cqDx1M6ktQUGWXrWP',
  contentfulDeliveryToken: 'wI7qGqREkYDvNfaTn3EQ5zcAY9L3RkG1F0nSxRgj_OX',
  launchdarklySdkKey: 'sdk-c3e1c41a-fad9-890b-2a4e-78dfa9cac6cc',
  segmentToken: 'sgp_y7yCSeSQE3ONKmofFqPuPsfnwBLYLfcmCoDDKMonAMxTY6N6mI6s0G0YVZ5gtTQM',
  auth0ClientSecret: 'pYi0kuVrGmvXvhwIXCU0WlzwrGVCwOtKV2XTAoBPKI8Fj8SG1GLn3QWWRnn4JuPN',
  oktaApiToken: '00yCAIVzPsocaOvJMk7kvNA5AoBfTIMdbKY8vdqvfm',
  intercomAccessToken: 'fBBV3iTUnjLgCaHO1WAUZ_D1fwYjN4b6yoX6cNirwTo2ARSV39siw6abF6Cd',
  serviceJwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJMQExW2WrgWuZkrmQSPun8CLuNF9XkllO9_dNZPgzUO3usn06OGf9P4dPhfhf.GSS5bPcZ8qaTx8tpMoPTgAbCCom6H9vcZcEVU7NIZz6',
  apiBase: 'https://api.example.com/v1',
  featureFlags: { newBilling: true },
};

// negatives
const token = localStorage.getItem('token');
const password = document.querySelector('#password').value;
const headers = { Authorization: `Bearer ${token}` };
const apiKey = process.env.API_KEY;
const secret = config.secret || '';
export function isStrongPassword(p) { return p.length >= 12; }
