import { useEffect } from "react"

/**
 * The tab title: "(2) Fix the login page · Trellis". Two parts set by different components, the
 * count of what needs the person (notify.ts) and the page's own name (a thread's title), so each
 * sets its part and the title is written from both.
 */

const BASE_TITLE = "Trellis"

let count = 0
let pageName: string | undefined

const write = () => {
  const named = pageName === undefined || pageName.trim() === "" ? BASE_TITLE : `${pageName} · ${BASE_TITLE}`
  document.title = count > 0 ? `(${count}) ${named}` : named
}

/** "(2) …" while something needs the person; no count again when nothing does or the page goes. */
export const useTabTitleCount = (value: number) => {
  useEffect(() => {
    count = value
    write()
    return () => {
      count = 0
      write()
    }
  }, [value])
}

/** The page's name before "· Trellis" while it is shown (none while it loads). */
export const usePageTitle = (name: string | undefined) => {
  useEffect(() => {
    pageName = name
    write()
    return () => {
      pageName = undefined
      write()
    }
  }, [name])
}
