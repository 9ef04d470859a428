// A link from a mail carries its code in the fragment (`#code=...`), which never reaches the server: this
// script puts it into the page's code field, then takes it out of the address bar and the history. The
// person still presses the button (a GET never consumes a code); without JavaScript they type the code.
const code = new URLSearchParams(window.location.hash.slice(1)).get('code')
if (code) {
  const field = document.querySelector('input[data-code-from-link]')
  if (field instanceof HTMLInputElement && field.value === '') field.value = code
  window.history.replaceState(null, '', window.location.pathname + window.location.search)
}
