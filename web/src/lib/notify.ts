import { createElement, useEffect, useRef, useState } from "react"

/**
 * Telling the person an agent waits on them while the app is open: a count in the tab title and,
 * once they allowed it with the button (never asked on load), a browser notification per new request.
 */

/** The count in the tab title; the title's other part, the page's name, is tabTitle.ts's too. */
export { useTabTitleCount } from "./tabTitle"

export interface Alert {
  readonly id: string
  readonly title: string
  readonly body: string
}

const supported = (): boolean => typeof window !== "undefined" && "Notification" in window

/** Whether the person is looking at this tab: in front and focused. */
export const inFront = (): boolean => document.visibilityState === "visible" && document.hasFocus()

/**
 * A browser notification, once the person allowed them, and only while the tab is not in front:
 * in front, the page itself shows what happened.
 */
export const showNotification = (alert: Alert): void => {
  if (!supported() || Notification.permission !== "granted" || inFront()) return
  const notification = new Notification(alert.title, { body: alert.body, tag: alert.id })
  notification.onclick = () => window.focus()
}

/**
 * A notification for each alert not seen before; the ones present at the first read are the
 * page's starting point, not news. Shown only while the tab is not in front: in front, the page
 * itself shows the request.
 */
export const useNotifyNew = (alerts: ReadonlyArray<Alert>, ready: boolean) => {
  const seen = useRef<Set<string> | undefined>(undefined)
  useEffect(() => {
    if (!ready) return
    if (seen.current === undefined) {
      seen.current = new Set(alerts.map((alert) => alert.id))
      return
    }
    const known = seen.current
    for (const alert of alerts) {
      if (known.has(alert.id)) continue
      known.add(alert.id)
      showNotification(alert)
    }
  }, [alerts, ready])
}

/** The button that asks for the browser's permission, and what was decided. */
export const NotificationsToggle = () => {
  const [permission, setPermission] = useState<NotificationPermission | "unsupported">(() =>
    supported() ? Notification.permission : "unsupported"
  )
  if (permission === "unsupported") return null
  if (permission === "granted") return createElement("span", { className: "hint" }, "Notifications on")
  if (permission === "denied") return createElement("span", { className: "hint" }, "Notifications blocked in this browser's site settings")
  return createElement(
    "button",
    {
      type: "button",
      className: "quiet",
      onClick: () => {
        void Notification.requestPermission().then(setPermission)
      }
    },
    "Notify me"
  )
}
