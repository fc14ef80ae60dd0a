// The words and strings that top every published list of leaked passwords, in the forms people
// stretch them to the minimum length with ("Password2024!", "qwerty123456", "iloveyou!!").
// Small on purpose: it is bundled and checked with no network; a password must also not be mostly
// one of these, or the sign-up email, or the service's own name.

/** Lower-case words; a password that is one of these with digits and symbols around it is refused. */
export const COMMON_WORDS: readonly string[] = [
  'password', 'passw0rd', 'passwort', 'motdepasse', 'contrasena', 'lozinka', 'qwerty', 'qwertz', 'azerty', 'asdf', 'zxcv',
  'letmein', 'welcome', 'admin', 'administrator', 'root', 'login', 'iloveyou', 'loveyou', 'dragon', 'monkey', 'football',
  'baseball', 'soccer', 'hockey', 'basketball', 'sunshine', 'princess', 'master', 'shadow', 'superman', 'batman', 'trustno',
  'starwars', 'pokemon', 'whatever', 'freedom', 'secret', 'changeme', 'default', 'guest', 'test', 'tester', 'testing',
  'hello', 'hellothere', 'charlie', 'michael', 'jennifer', 'jordan', 'hunter', 'ranger', 'buster', 'thomas', 'tigger',
  'killer', 'pepper', 'summer', 'winter', 'spring', 'autumn', 'computer', 'internet', 'samsung', 'apple', 'google',
  'microsoft', 'facebook', 'linkedin', 'chatgpt', 'openai', 'cookie', 'chocolate', 'flower', 'butterfly', 'purple',
  'orange', 'banana', 'cheese', 'matrix', 'mustang', 'harley', 'ferrari', 'liverpool', 'chelsea', 'arsenal', 'barcelona',
  'madrid', 'hajduk', 'dinamo', 'zagreb', 'split', 'hrvatska', 'croatia', 'volimte', 'ljubav', 'sunce', 'princeza',
  'access', 'master', 'mypass', 'mypassword', 'newpassword', 'oldpassword', 'yourpassword', 'abc', 'abcd', 'qazwsx',
  'zaq1', 'zaq12wsx', 'qwer', '1qaz2wsx', 'asdfgh', 'asdfghjkl', 'zxcvbnm', 'qwertyuiop', 'aaaa', 'love', 'angel',
  'baby', 'family', 'forever', 'friends', 'jesus', 'god', 'heaven', 'money', 'lucky', 'magic', 'ninja', 'pass', 'user',
  'munja',
];

/** Strings that walk a keyboard row or count: a password that is a run of one of these is refused. */
export const SEQUENCES: readonly string[] = [
  '01234567890', '09876543210', 'abcdefghijklmnopqrstuvwxyz', 'zyxwvutsrqponmlkjihgfedcba',
  'qwertyuiop', 'poiuytrewq', 'asdfghjkl', 'lkjhgfdsa', 'zxcvbnm', 'mnbvcxz', 'qwertzuiop', 'yxcvbnm', 'azertyuiop',
  '1qaz2wsx3edc4rfv5tgb', 'qazwsxedcrfvtgbyhnujm', 'zaq12wsxcde34rfv',
];
