// Copy buttons: a button `data-copy="ID"` copies the text of element ID. Without JavaScript the buttons
// stay hidden and the text stays selectable.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy)
  if (target === null || navigator.clipboard === undefined) continue
  const label = button.textContent
  button.hidden = false
  button.addEventListener('click', async () => {
    try {
      // A list is copied one item a line; anything else as its text.
      const items = [...target.querySelectorAll('li')].map((item) => item.textContent.trim())
      await navigator.clipboard.writeText(items.length > 0 ? items.join('\n') : target.textContent.trim())
      button.textContent = 'Copied'
    } catch {
      button.textContent = 'Copy failed: select the text instead'
    }
    setTimeout(() => {
      button.textContent = label
    }, 4000)
  })
}
